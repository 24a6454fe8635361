package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHeadlessBuild: `make build-headless` (CGO_ENABLED=0, -tags headless)
// makes a static mcptray without Fyne — no Fyne module in the binary —
// whose tray-app command says it has no desktop UI and runs the core
// instead, even with a display: the server starts, the headless CLI sees
// it, SIGTERM ends it cleanly.
func TestHeadlessBuild(t *testing.T) {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	bin := filepath.Join(t.TempDir(), "mcptray-headless")
	build := exec.Command(goBin, "build", "-tags", "headless", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags headless: %v\n%s", err, out)
	}
	mods, err := exec.Command(goBin, "version", "-m", bin).Output()
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
