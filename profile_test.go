package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopInstance sends SIGTERM and waits for the daemon to exit.
func stopInstance(t *testing.T, in *instance) {
	t.Helper()
	in.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-in.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("daemon did not exit within 30s of SIGTERM")
	}
}

// TestCPUProfile: with MCPTRAY_CPUPROFILE=DIR the daemon writes
// DIR/daemon-PID.pprof when it ends; with a directory that is not there it
// says so and runs anyway.
func TestCPUProfile(t *testing.T) {
	newInstance := func(env string) *instance {
		dir := t.TempDir()
		in := &instance{t: t, config: filepath.Join(dir, "mcp.json"), data: filepath.Join(dir, "data"), env: []string{env}}
		in.flagsFirst = []string{"--config", in.config, "--data", in.data}
		writeConfig(t, in.config, map[string]any{})
		in.start()
		return in
	}

	profiles := t.TempDir()
	in := newInstance(profileEnv + "=" + profiles)
	stopInstance(t, in)
	b, err := os.ReadFile(filepath.Join(profiles, "daemon-"+strconv.Itoa(in.cmd.Process.Pid)+".pprof"))
	if err != nil {
		t.Fatalf("no profile: %v (stderr: %s)", err, in.stderr)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b { // pprof files are gzipped protobuf
		t.Errorf("the profile is not a pprof file (%d bytes)", len(b))
	}

	missing := filepath.Join(t.TempDir(), "missing")
	in = newInstance(profileEnv + "=" + missing)
	if code, _, stderr := in.run("status"); code != exitOK {
		t.Errorf("status: exit %d: %s", code, stderr)
	}
	stopInstance(t, in)
	if want := profileEnv + ": open " + missing; !strings.Contains(in.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, in.stderr)
	}
}
