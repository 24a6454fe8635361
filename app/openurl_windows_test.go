package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcptray/mcptray/internal/testkit"
)

// TestWindowsOpenURL: $BROWSER (a list separated by ";" on Windows, whose
// drive letters hold a ":") runs with the URL in place of %s. The browser
// is this test binary, which writes what it was given to a file.
func TestWindowsOpenURL(t *testing.T) {
	if out := os.Getenv("MCPTRAY_TEST_BROWSER_OUT"); out != "" {
		os.WriteFile(out, []byte(os.Args[len(os.Args)-1]), 0o600)
		os.Exit(0)
	}
	out := filepath.Join(testkit.TempDir(t), "url")
	t.Setenv("MCPTRAY_TEST_BROWSER_OUT", out)
	t.Setenv("BROWSER", `C:\no\such\browser.exe;`+os.Args[0]+" -test.run=^TestWindowsOpenURL$ %s")
	const url = "https://accounts.example/o?a=1&b=2"
	if err := openBrowser(url); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the browser ran", func() bool {
		b, _ := os.ReadFile(out)
		return string(b) == url
	})
}
