//go:build linux

package wine

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testTags are the build tags of the pure-Go Windows test binaries:
// headless, main without the tray app.
const testTags = "headless"

// glfw is the package that makes a Windows build need cgo (mingw): Fyne's
// GLFW driver. A package that imports it (ui) is built as `make
// build-windows` builds the tray app, with x86_64-w64-mingw32-gcc and no
// tags, so the two share the build cache. The cold build of Fyne for
// Windows takes ≈ 7 min on 2 busy cores (then seconds), too long to put
// inside make test beside every other package's tests: such packages run
// only with MCPTRAY_WINDOWS_CGO=1, as make test-windows sets it after
// make build-windows (CI runs both); without it they are skipped, saying so.
const glfw = "github.com/go-gl/glfw/v3.3/glfw"

// TestWindowsPackageTests runs the Windows-only tests of the module's
// packages (files named *_windows_test.go; their tests' names hold
// "Windows") under Wine: one test binary per package, built with `go test
// -c` for windows/amd64, run from its package's folder with
// `-test.run Windows`. A package's failure is its subtest's, with the
// binary's output.
func TestWindowsPackageTests(t *testing.T) {
	haveWine(t)
	t.Cleanup(func() { wineScript("--kill") })
	list := exec.Command("go", "list", "-e", "-tags", testTags, "-f",
		`{{.ImportPath}} {{.Dir}} {{join .TestGoFiles ","}},{{join .XTestGoFiles ","}} {{join .Deps ","}}`, "./...")
	list.Dir = root
	list.Env = append(list.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=1")
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list for windows: %v", err)
	}
	type pkg struct {
		path, dir string
		cgo       bool
	}
	var pkgs []pkg
	var pure, cgo []string
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) < 3 || !strings.Contains(f[2], "_windows_test.go") {
			continue
		}
		p := pkg{path: f[0], dir: f[1]}
		p.cgo = len(f) > 3 && strings.Contains(","+f[3]+",", ","+glfw+",")
		pkgs = append(pkgs, p)
		if p.cgo {
			cgo = append(cgo, p.path)
		} else {
			pure = append(pure, p.path)
		}
	}
	if len(pkgs) == 0 {
		t.Skip("no package has Windows-only tests")
	}
	// go test -c -o DIR/ names each binary after its package's folder.
	seen := map[string]string{}
	for _, p := range pkgs {
		if other, ok := seen[filepath.Base(p.path)]; ok {
			t.Fatalf("%s and %s both build into %s.test.exe: give this test a way to tell them apart", other, p.path, filepath.Base(p.path))
		}
		seen[filepath.Base(p.path)] = p.path
	}
	bin := t.TempDir()
	t0 := time.Now()
	build := func(env []string, tags string, pkgs []string) {
		if len(pkgs) == 0 {
			return
		}
		args := []string{"test", "-c", "-o", bin + "/"}
		if tags != "" {
			args = append(args, "-tags", tags)
		}
		cmd := exec.Command("go", append(args, pkgs...)...)
		cmd.Dir = root
		cmd.Env = append(append(cmd.Environ(), "GOOS=windows", "GOARCH=amd64"), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go test -c for windows %s: %v\n%s", strings.Join(env, " "), err, out)
		}
	}
	build([]string{"CGO_ENABLED=0"}, testTags, pure)
	withCgo := os.Getenv("MCPTRAY_WINDOWS_CGO") == "1"
	if len(cgo) > 0 && withCgo {
		if _, err := exec.LookPath("x86_64-w64-mingw32-gcc"); err != nil {
			t.Fatalf("no x86_64-w64-mingw32-gcc for %v (apt: gcc-mingw-w64-x86-64; scripts/deps.sh installs it)", cgo)
		}
		build([]string{"CGO_ENABLED=1", "CC=x86_64-w64-mingw32-gcc"}, "", cgo)
	}
	t.Logf("built the test binaries for windows: %d pure Go, %d with cgo (%s)", len(pure), len(cgo), time.Since(t0).Round(time.Millisecond))
	for _, p := range pkgs {
		t.Run(strings.TrimPrefix(p.path, "github.com/mcptray/mcptray/"), func(t *testing.T) {
			if p.cgo && !withCgo {
				t.Skip("its Windows build needs cgo (Fyne's GLFW, ≈ 7 min cold): make test-windows runs it (MCPTRAY_WINDOWS_CGO=1)")
			}
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
