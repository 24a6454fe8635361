//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/internal/testdaemon"
)

// TestCPUProfile: with MCPTRAY_CPUPROFILE=DIR the daemon writes
// DIR/daemon-PID.pprof when it ends; with a directory that is not there it
// says so and runs anyway.
func TestCPUProfile(t *testing.T) {
	newInstance := func(env string) *instance {
		dir := t.TempDir()
		in := &instance{&testdaemon.Instance{T: t, Config: filepath.Join(dir, "mcp.json"), Data: filepath.Join(dir, "data"), Env: []string{env}}}
		in.FlagsFirst = []string{"--config", in.Config, "--data", in.Data}
		writeConfig(t, in.Config, map[string]any{})
		in.Start()
		return in
	}

	profiles := t.TempDir()
	in := newInstance(profileEnv + "=" + profiles)
	stopInstance(t, in)
	b, err := os.ReadFile(filepath.Join(profiles, "daemon-"+strconv.Itoa(in.Cmd.Process.Pid)+".pprof"))
	if err != nil {
		t.Fatalf("no profile: %v (stderr: %s)", err, in.Stderr)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b { // pprof files are gzipped protobuf
		t.Errorf("the profile is not a pprof file (%d bytes)", len(b))
	}

	missing := filepath.Join(t.TempDir(), "missing")
	in = newInstance(profileEnv + "=" + missing)
	if code, _, stderr := in.Run("status"); code != exitOK {
		t.Errorf("status: exit %d: %s", code, stderr)
	}
	stopInstance(t, in)
	if want := profileEnv + ": open " + missing; !strings.Contains(in.Stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, in.Stderr)
	}
}
