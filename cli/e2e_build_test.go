//go:build linux

package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testdaemon"
)

// The binaries `make build` and `make build-headless` make, built from the
// module's root (package main, with its build-tagged wiring of the tray
// app) and run for real: these tests are about what main links in, which
// this package's test binary, never linking the UI, cannot show.

// buildSetting returns a setting this test binary was built with
// ("-race", "-tags", "CGO_ENABLED"), "" when it is not set.
func buildSetting(key string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == key {
				return s.Value
			}
		}
	}
	return ""
}

// headlessBuild reports whether this test binary was built with -tags
// headless, as `make bench` builds its headless run.
func headlessBuild() bool {
	return slices.Contains(strings.Split(buildSetting("-tags"), ","), "headless")
}

// buildMcptray builds mcptray from the module's root into a temp dir with
// the given go build flags and KEY=VALUE environment, and returns its path.
// The tray binary is built with -race when this test binary is, so that it
// shares the build cache's Fyne packages with `make test`.
func buildMcptray(t testing.TB, name string, env []string, flags ...string) string {
	t.Helper()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	bin := filepath.Join(t.TempDir(), name)
	build := exec.Command(goBin, append(append([]string{"build"}, flags...), "-o", bin, ".")...)
	build.Dir = ".." // the module's root: package main
	build.Env = append(os.Environ(), env...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", strings.Join(flags, " "), err, out)
	}
	// On disk, as an installed binary is: the instance drops its binary's
	// unmapped pages from the page cache at start (downstream.EvictCodeCache),
	// which pages still to be written keep there.
	f, err := os.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		t.Fatalf("syncing %s: %v", bin, err)
	}
	return bin
}

// buildGoogleBeside builds mcptray-google (cmd/mcptray-google, static, as
// `make build` does) into the folder of the mcptray at bin, where
// `mcptray serve gcal|gmail` looks for it.
func buildGoogleBeside(t testing.TB, bin string) {
	t.Helper()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	build := exec.Command(goBin, "build", "-o", filepath.Join(filepath.Dir(bin), GoogleBinary), "./cmd/mcptray-google")
	build.Dir = ".."
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/mcptray-google: %v\n%s", err, out)
	}
}

// buildTray builds the tray binary, as `make build` does.
func buildTray(t testing.TB) string {
	t.Helper()
	var flags []string
	if buildSetting("-race") == "true" {
		flags = append(flags, "-race")
	}
	return buildMcptray(t, "mcptray", nil, flags...)
}

// TestHeadlessBuild: `make build-headless` (CGO_ENABLED=0, -tags headless)
// makes a static mcptray without Fyne — no Fyne module in the binary —
// whose tray-app command says it has no desktop UI and runs the core
// instead, even with a display: the server starts, the headless CLI sees
// it, SIGTERM ends it cleanly.
func TestHeadlessBuild(t *testing.T) {
	bin := buildMcptray(t, "mcptray-headless", []string{"CGO_ENABLED=0"}, "-tags", "headless")
	mods, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(mods), "fyne.io") {
		t.Errorf("the headless build links Fyne:\n%s", mods)
	}
	if !strings.Contains(string(mods), "CGO_ENABLED=0") {
		t.Errorf("the headless build is not static:\n%s", mods)
	}

	dir := t.TempDir()
	config, data := filepath.Join(dir, "mcp.json"), filepath.Join(dir, "data")
	writeConfig(t, config, map[string]any{"e": fakeEntry(t, "echo")})
	run := exec.Command(bin, "--config", config, "--data", data)
	run.Env = append(os.Environ(), "DISPLAY=:0")
	stderr := new(syncBuffer)
	run.Stderr = stderr
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- run.Wait() }()
	t.Cleanup(func() { run.Process.Kill() })

	deadline := time.Now().Add(60 * time.Second)
	for {
		out, _ := exec.Command(bin, "status", "--json", "--config", config, "--data", data).Output()
		var st statusJSON
		if json.Unmarshal(out, &st) == nil && len(st.Servers) == 1 && st.Servers[0].State == "ready" {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("mcptray-headless exited: %v\n%s", err, stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("server e never ready: %s\n%s", out, stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(stderr.String(), "mcptray: this mcptray is built without the desktop UI: running headless (as `mcptray daemon`)") {
		t.Errorf("stderr does not say why there is no tray:\n%s", stderr)
	}
	run.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("after SIGTERM: %v\n%s", err, stderr)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("mcptray-headless did not exit within 30 s of SIGTERM")
	}
}

// TestServeGcalBecomesMcptrayGoogle: a built mcptray checks `serve gcal`'s
// command line itself, then becomes the mcptray-google beside it — the
// same process, which answers MCP on the same stdio; without one beside it
// or on PATH, it says where it looked and how to get one.
func TestServeGcalBecomesMcptrayGoogle(t *testing.T) {
	bin := buildMcptray(t, "mcptray-headless", []string{"CGO_ENABLED=0"}, "-tags", "headless")
	dir := t.TempDir()
	env := append(os.Environ(), "MCPTRAY_DATA="+filepath.Join(dir, "data"), "MCPTRAY_CONFIG="+filepath.Join(dir, "mcp.json"), "PATH=/usr/bin:/bin")

	// No mcptray-google yet.
	cmd := exec.Command(bin, "serve", "gcal")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	want := "mcptray: the Google servers run in mcptray-google, which is neither in " + filepath.Dir(bin) + " nor on PATH"
	if code := exitCode(err); code != 1 || !strings.Contains(string(out), want) {
		t.Errorf("without mcptray-google: exit %d %q, want 1 and %q", code, out, want)
	}

	buildGoogleBeside(t, bin)
	cmd = exec.Command(bin, "serve", "gcal", "--bogus")
	cmd.Env = env
	out, err = cmd.CombinedOutput()
	if code := exitCode(err); code != 2 || !strings.Contains(string(out), "mcptray: flag provided but not defined: -bogus") {
		t.Errorf("a bad flag: exit %d %q, want mcptray's usage error", code, out)
	}

	cmd = exec.Command(bin, "serve", "gcal")
	cmd.Env = env
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr := new(syncBuffer)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"))
	line := make([]byte, 64<<10)
	n, _ := stdout.Read(line)
	if !strings.Contains(string(line[:n]), `"id":1`) || !strings.Contains(string(line[:n]), `"serverInfo"`) {
		t.Fatalf("serve gcal answered %q; stderr: %s", line[:n], stderr)
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", cmd.Process.Pid))
	if err != nil || filepath.Base(exe) != GoogleBinary {
		t.Errorf("serve gcal runs %q (%v), want mcptray-google in the same process", exe, err)
	}
}

// exitCode is a finished command's exit code (0 for a nil error).
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestNoLocaleErrorUnderCUTF8: with LANG=C.UTF-8 (Debian's and Docker's
// default), the tray binary logs no Fyne locale error (package
// ui/fynelocale), and the servers it starts still see LANG=C.UTF-8.
func TestNoLocaleErrorUnderCUTF8(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "lang")
	in := &instance{&testdaemon.Instance{T: t, Config: filepath.Join(dir, "mcp.json"), Data: filepath.Join(dir, "data"),
		Env: []string{"LANG=C.UTF-8", "LC_ALL=", "LC_MESSAGES=", "LANGUAGE="}, Bin: buildTray(t)}}
	in.FlagsFirst = []string{"--config", in.Config, "--data", in.Data}
	writeConfig(t, in.Config, map[string]any{"probe": map[string]any{
		"command": "sh", "args": []string{"-c", `printf %s "$LANG" >"$0.tmp" && mv "$0.tmp" "$0" && exec cat`, seen}}})
	in.Start()

	var lang []byte
	waitFor(t, "the server to write its LANG", func() bool {
		var err error
		lang, err = os.ReadFile(seen)
		return err == nil
	})
	if string(lang) != "C.UTF-8" {
		t.Errorf("the server saw LANG=%q, want C.UTF-8", lang)
	}
	stopInstance(t, in)
	if strings.Contains(in.Stderr.String(), "locale") {
		t.Errorf("mcptray logged a locale error:\n%s", in.Stderr)
	}
}
