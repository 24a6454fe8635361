//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/internal/testdaemon"
	"github.com/mcptray/mcptray/internal/testkit"
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

// TestMemstats: with MCPTRAY_MEMSTATS=DIR the daemon keeps
// DIR/daemon-PID.json with its Go runtime's memory readings, rewritten
// every second; a command that does not stay (status) writes none; with a
// directory that is not there it says so and runs anyway.
func TestMemstats(t *testing.T) {
	newInstance := func(env string) *instance {
		dir := t.TempDir()
		in := &instance{&testdaemon.Instance{T: t, Config: filepath.Join(dir, "mcp.json"), Data: filepath.Join(dir, "data"), Env: []string{env}}}
		in.FlagsFirst = []string{"--config", in.Config, "--data", in.Data}
		writeConfig(t, in.Config, map[string]any{})
		in.Start()
		return in
	}

	dir := t.TempDir()
	in := newInstance(memstatsEnv + "=" + dir)
	path := filepath.Join(dir, "daemon-"+strconv.Itoa(in.Cmd.Process.Pid)+".json")
	read := func() (memstatsFile, bool) {
		var f memstatsFile
		b, err := os.ReadFile(path)
		return f, err == nil && json.Unmarshal(b, &f) == nil
	}
	first, ok := read()
	if !ok { // written before the core starts, so before the socket answers
		t.Fatalf("no readings in %s (stderr: %s)", path, in.Stderr)
	}
	if first.Command != "daemon" || first.PID != in.Cmd.Process.Pid {
		t.Errorf("the file names command %q and pid %d; want daemon and %d", first.Command, first.PID, in.Cmd.Process.Pid)
	}
	heap, total := first.Metrics["/memory/classes/heap/objects:bytes"], first.Metrics["/memory/classes/total:bytes"]
	if heap == 0 || total < heap {
		t.Errorf("heap objects %d B, total %d B: want a heap, and a total that holds it", heap, total)
	}
	testkit.WaitFor(t, "the readings to be rewritten", func() bool {
		f, ok := read()
		return ok && f.Time.After(first.Time)
	})
	if code, _, stderr := in.Run("status"); code != exitOK {
		t.Errorf("status: exit %d: %s", code, stderr)
	}
	stopInstance(t, in)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != filepath.Base(path) {
			t.Errorf("%s in the readings' folder: only the daemon's file belongs there", e.Name())
		}
	}

	missing := filepath.Join(t.TempDir(), "missing")
	in = newInstance(memstatsEnv + "=" + missing)
	stopInstance(t, in)
	if want := memstatsEnv + ": open " + missing; !strings.Contains(in.Stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, in.Stderr)
	}
}
