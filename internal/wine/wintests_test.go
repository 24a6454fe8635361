package wine

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWindowsPackageTests runs the Windows-only tests of the module's
// packages (files named *_windows_test.go; their tests' names hold
// "Windows") under Wine: one test binary per package, built with `go test
// -c` for windows/amd64, run from its package's folder with
// `-test.run Windows`. A package's failure is its subtest's, with the
// binary's output.
func TestWindowsPackageTests(t *testing.T) {
	haveWine(t)
	t.Cleanup(func() { wineScript("--kill") })
	list := exec.Command("go", "list", "-f", `{{.ImportPath}} {{.Dir}} {{join .TestGoFiles ","}},{{join .XTestGoFiles ","}}`, "./...")
	list.Dir = root
	list.Env = append(list.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list for windows: %v", err)
	}
	type pkg struct{ path, dir string }
	var pkgs []pkg
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) == 3 && strings.Contains(f[2], "_windows_test.go") {
			pkgs = append(pkgs, pkg{f[0], f[1]})
		}
	}
	if len(pkgs) == 0 {
		t.Skip("no package has Windows-only tests")
	}
	bin := t.TempDir()
	args := []string{"test", "-c", "-tags", "headless", "-o", bin + "/"}
	for _, p := range pkgs {
		args = append(args, p.path)
	}
	t0 := time.Now()
	build := exec.Command("go", args...)
	build.Dir = root
	build.Env = append(build.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c for windows: %v\n%s", err, out)
	}
	t.Logf("built %d test binaries for windows (%s)", len(pkgs), time.Since(t0).Round(time.Millisecond))
	for _, p := range pkgs {
		t.Run(strings.TrimPrefix(p.path, "github.com/mcptray/mcptray/"), func(t *testing.T) {
			exe := filepath.Join(bin, filepath.Base(p.path)+".test.exe")
			cmd := wineCmd(exe, "-test.run", "Windows", "-test.count", "1", "-test.v")
			cmd.Dir = p.dir
			f := outFile(t) // a file: see run
			cmd.Stdout, cmd.Stderr = f, f
			t0 := time.Now()
			err := cmd.Run()
			out := readOut(t, f)
			if err != nil {
				t.Fatalf("%s under Wine: %v\n%s", filepath.Base(exe), err, out)
			}
			if !strings.Contains(out, "--- PASS") {
				t.Fatalf("%s ran no Windows test:\n%s", filepath.Base(exe), out)
			}
			t.Logf("%d tests passed under Wine (%s)", strings.Count(out, "--- PASS"), time.Since(t0).Round(time.Millisecond))
		})
	}
}
