package cli

import (
	"encoding/json"
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
	return bin
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
