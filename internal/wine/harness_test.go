//go:build linux

package wine

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// profileUser is the Windows user of the test prefix: its profile folder,
// C:\users\Zoë Test, puts a space and a non-ASCII letter into every path
// mcptray uses (%APPDATA%, %LOCALAPPDATA%).
const profileUser = "Zoë Test"

// root is the repo's root (this package is internal/wine).
var root = func() string {
	dir, _ := os.Getwd()
	return filepath.Join(dir, "..", "..")
}()

// prefixOnce makes the prefix once per test binary; the tests then share it
// (and its wineserver) one after the other.
var (
	prefixOnce sync.Once
	prefixErr  error
)

// winePrefix is the test prefix, made by scripts/wine.sh.
func winePrefix() string {
	return filepath.Join(root, ".cache", "wine", "e2e")
}

// haveWine skips t, saying why, when there is no wine64 (and fails it in
// CI, where scripts/deps.sh installed it); otherwise it makes the prefix.
func haveWine(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the Windows tests run under Wine on linux/amd64")
	}
	if _, err := exec.LookPath("wine64"); err != nil {
		if out, err := exec.Command("dpkg", "-L", "wine64").Output(); err != nil || !bytes.Contains(out, []byte("/wine64\n")) {
			if os.Getenv("CI") == "true" {
				t.Fatal("no wine64 in CI: scripts/deps.sh installs it (apt: wine64)")
			}
			t.Skip("no wine64 (apt: wine64; scripts/deps.sh installs it): the Windows tests under Wine did not run")
		}
	}
	prefixOnce.Do(func() {
		var out string
		out, prefixErr = wineScript("--setup")
		if prefixErr != nil {
			prefixErr = fmt.Errorf("%w: %s", prefixErr, out)
		}
	})
	if prefixErr != nil {
		t.Fatalf("making the Wine prefix: %v", prefixErr)
	}
}

// wineCmd is scripts/wine.sh ARGS in the test prefix. The environment is
// the test's without MCPTRAY_ variables (Wine hands the Unix environment
// to Windows programs, and a developer's MCPTRAY_CONFIG must not reach
// mcptray.exe), plus env (KEY=VALUE).
func wineCmd(args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(root, "scripts", "wine.sh"), args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MCPTRAY_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "MCPTRAY_WINEPREFIX="+winePrefix(), "MCPTRAY_WINE_USER="+profileUser)
	return cmd
}

// wineScript runs scripts/wine.sh --setup, --reset or --kill and returns
// its output.
func wineScript(arg string) (string, error) {
	cmd := wineCmd(arg)
	out, err := os.CreateTemp("", "wine-sh-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	err = cmd.Run()
	b, _ := os.ReadFile(out.Name())
	return string(b), err
}

// profile is the Linux path of C:\users\Zoë Test.
func profile() string {
	return filepath.Join(winePrefix(), "drive_c", "users", profileUser)
}

// winPath is the Windows path of a Linux path: C:\… inside the prefix's
// drive_c, else Z:\….
func winPath(p string) string {
	driveC := filepath.Join(winePrefix(), "drive_c")
	if rel, err := filepath.Rel(driveC, p); err == nil && !strings.HasPrefix(rel, "..") {
		return `C:\` + strings.ReplaceAll(rel, "/", `\`)
	}
	return "Z:" + strings.ReplaceAll(p, "/", `\`)
}

// run runs a Windows program under Wine with stdin and returns its exit
// code and output.
//
// Its stdout and stderr are files, never pipes: the processes Wine starts
// for the prefix (wineserver, services.exe, …) inherit them and outlive
// the program, so a reader of a pipe would wait for them.
func run(t *testing.T, stdin string, exe string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := wineCmd(append([]string{exe}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = outFile(t), outFile(t)
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running %s under Wine: %v", exe, err)
	}
	return code, readOut(t, cmd.Stdout.(*os.File)), readOut(t, cmd.Stderr.(*os.File))
}

// outFile is a file for a Windows program's output (see run).
func outFile(t *testing.T) *os.File {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "out-*")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// readOut reads an outFile back, closes and removes it.
func readOut(t *testing.T, f *os.File) string {
	t.Helper()
	defer os.Remove(f.Name())
	defer f.Close()
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// goBuildWindows builds the packages for windows/amd64 (pure Go, no cgo)
// into dir, named as go build names them, with tags.
func goBuildWindows(t *testing.T, dir string, tags string, pkgs ...string) {
	t.Helper()
	args := []string{"build", "-o", dir + "/"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	cmd := exec.Command("go", append(args, pkgs...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build for windows %v: %v\n%s", pkgs, err, out)
	}
}
