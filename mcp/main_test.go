//go:build linux

package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"github.com/mcptray/mcptray/mcp/downstream"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// The test binary is also every fake server (mcptest.Main) and the
// watchdog (downstream.RunWatchdogIfRequested).
func TestMain(m *testing.M) {
	downstream.RunWatchdogIfRequested()
	mcptest.Main()
	os.Exit(m.Run())
}

// fake is a started fake server with its log.
type fake struct {
	*downstream.Session
	marker string // downstream.InstanceEnv=… in the server's environment
	log    *logRecorder
}

type fakeOpt func(*downstream.StdioSpec)

func withEnv(kv ...string) fakeOpt {
	return func(s *downstream.StdioSpec) { s.Env = append(s.Env, kv...) }
}

// fakeSpec is the spec for a fake server in mode, marked with a fresh
// instance id so the test can find every process it left.
func fakeSpec(mode string, opts ...fakeOpt) (downstream.StdioSpec, string) {
	marker := downstream.InstanceEnv + "=test-" + randomHex()
	spec := downstream.StdioSpec{
		Name:      mode,
		Command:   os.Args[0],
		Env:       mcptest.Env(mode, marker),
		StopGrace: 500 * time.Millisecond,
		TermGrace: 500 * time.Millisecond,
	}
	for _, o := range opts {
		o(&spec)
	}
	return spec, marker
}

func startFake(t testing.TB, mode string, hooks downstream.Hooks, opts ...fakeOpt) *fake {
	t.Helper()
	spec, marker := fakeSpec(mode, opts...)
	rec := &logRecorder{}
	if hooks.Log == nil {
		hooks.Log = rec.add
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := downstream.Start(ctx, spec, hooks)
	if err != nil {
		t.Fatalf("downstream.Start(%s): %v", mode, err)
	}
	t.Cleanup(func() {
		s.Close()
		if pids := markedPids(marker); len(pids) > 0 {
			t.Errorf("processes left after Close: %v", pids)
		}
	})
	return &fake{Session: s, marker: marker, log: rec}
}

func randomHex() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// logRecorder keeps every downstream.Hooks.Log line as "kind|line".
type logRecorder struct {
	mu    sync.Mutex
	lines []string // guarded by mu
}

func (r *logRecorder) add(kind, line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, kind+"|"+line)
}

func (r *logRecorder) has(entry string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range r.lines {
		if l == entry {
			return true
		}
	}
	return false
}

func (r *logRecorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, l := range r.lines {
		if len(l) > 200 {
			l = l[:200] + "…"
		}
		b.WriteString("\n  " + l)
	}
	return b.String()
}

// waitLog waits until entry ("kind|line") has been logged.
func (r *logRecorder) wait(t *testing.T, entry string) {
	t.Helper()
	if !testkit.Eventually(5*time.Second, func() bool { return r.has(entry) }) {
		t.Fatalf("log never got %q; it has:%s", entry, r)
	}
}

// markedPids lists the live processes whose environment has marker.
func markedPids(marker string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if i := bytes.LastIndexByte(stat, ')'); err != nil || i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' || stat[i+2] == 'X' {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err == nil && slices.ContainsFunc(bytes.Split(env, []byte{0}), func(kv []byte) bool { return string(kv) == marker }) {
			pids = append(pids, pid)
		}
	}
	return pids
}
