package ui

import (
	"fmt"
	"os"
	"testing"

	"github.com/mcptray/mcptray/app"
)

// childEnv makes the test binary, re-executed by TestRealWindow, run the real
// app (ui.Run on the main goroutine, with the GL driver) instead of tests.
const childEnv = "MCPTRAY_UI_TEST_CHILD"

// childDone is what the child prints once Run has returned.
const childDone = "ui.Run returned: "

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		runChild()
		return
	}
	// Fyne writes preferences and font caches under HOME.
	home, err := os.MkdirTemp("", "mcptray-ui-test-home")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("HOME", home)
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"} {
		os.Unsetenv(v)
	}
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// runChild runs ui.Run over a fake core that reports two servers, then a
// config error through its subscription.
func runChild() {
	updates := make(chan app.Status, 1)
	bad := twoServers()
	bad.ConfigError = "mcp.json:3:14: invalid character '}' looking for beginning of value"
	updates <- bad
	c := &fakeCore{
		status:    twoServers,
		subscribe: func() (<-chan app.Status, func()) { return updates, func() {} },
		setEnabled: func(name string, enabled bool) error {
			fmt.Printf("SetEnabled(%q, %v)\n", name, enabled)
			return nil
		},
	}
	err := Run(c)
	fmt.Printf("%s%v\n", childDone, err)
	if err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}
