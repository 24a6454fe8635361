package mcptest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
)

// The harness that package mcp's and package mcp/downstream's tests share
// to start these fake servers as real subprocesses, record what they log
// and check that none is left running afterwards. It does not import
// mcp/downstream (whose own tests use it, and a test may not import a
// package that imports the package under test): StartFake takes the start
// step as a function.

// Marker is instanceEnv=test-<random hex>: put in a fake server's
// environment, it lets MarkedPids find every process the server left.
func Marker(instanceEnv string) string {
	var b [8]byte
	rand.Read(b[:])
	return instanceEnv + "=test-" + hex.EncodeToString(b[:])
}

// StartFake runs start (give it 20 s) and returns what it started; at the
// end of the test it closes that and fails t if a process with marker in
// its environment still runs.
func StartFake[S io.Closer](t testing.TB, name, marker string, start func(context.Context) (S, error)) S {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := start(ctx)
	if err != nil {
		t.Fatalf("starting fake server %s: %v", name, err)
	}
	t.Cleanup(func() {
		s.Close()
		if pids := MarkedPids(marker); len(pids) > 0 {
			t.Errorf("processes left after Close: %v", pids)
		}
	})
	return s
}

// Log keeps every log line a server's session reports (the Log hook of
// mcp/downstream) as "kind|line". Safe for concurrent use.
type Log struct {
	mu    sync.Mutex
	lines []string // guarded by mu
}

// Add records one line; it is the session's Log hook.
func (r *Log) Add(kind, line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, kind+"|"+line)
}

// Has reports whether entry ("kind|line") has been logged.
func (r *Log) Has(entry string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Contains(r.lines, entry)
}

func (r *Log) String() string {
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

// Wait waits until entry ("kind|line") has been logged.
func (r *Log) Wait(t testing.TB, entry string) {
	t.Helper()
	if !testkit.Eventually(5*time.Second, func() bool { return r.Has(entry) }) {
		t.Fatalf("log never got %q; it has:%s", entry, r)
	}
}

// MarkedPids lists the live processes (not zombies) whose environment has
// marker (KEY=VALUE), from /proc; none where there is no /proc.
func MarkedPids(marker string) []int {
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
