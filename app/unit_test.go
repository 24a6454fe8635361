package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	var b backoff
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, backoffMax, backoffMax}
	for i, w := range want {
		if got := b.fail(time.Second); got != w {
			t.Errorf("failure %d: delay %s, want %s", i+1, got, w)
		}
	}
	if !b.crashLoop() {
		t.Error("not in crash-loop after 6 quick failures")
	}
	if got := b.fail(healthyUptime); got != time.Second || b.crashLoop() {
		t.Errorf("after a healthy run: delay %s, crash-loop %v; want 1s, false", got, b.crashLoop())
	}
	var c backoff
	for range 10 {
		c.fail(0)
	}
	if got := c.fail(0); got != backoffMax {
		t.Errorf("delay capped at %s, want %s", got, backoffMax)
	}
}

func TestLogFileName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"ssh":         "ssh.log",
		"my server/x": "my_server_x.log",
		"..":          "_...log",
		"ü-1.2":       "_-1.2.log",
	} {
		if got := LogFileName(in); got != want {
			t.Errorf("LogFileName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestServerLogRotates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := openServerLog(dir, "big")
	line := strings.Repeat("x", 1000)
	for range 6000 { // ≈ 6 MB
		l.Write("stderr", line)
	}
	l.Close()
	cur, err := os.Stat(filepath.Join(dir, "big.log"))
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.Stat(filepath.Join(dir, "big.log.1"))
	if err != nil {
		t.Fatal("no rotated file:", err)
	}
	if cur.Size() > MaxLogSize || old.Size() > MaxLogSize {
		t.Errorf("sizes %d and %d exceed %d", cur.Size(), old.Size(), MaxLogSize)
	}
	if cur.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v, want 0600", cur.Mode().Perm())
	}
}

func TestMultilineLogTextStaysTagged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := openServerLog(dir, "m")
	l.Write("stderr", "one\ntwo\r\n")
	l.Close()
	b, _ := os.ReadFile(filepath.Join(dir, "m.log"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[1], "[stderr] two") {
		t.Errorf("log = %q", b)
	}
}

func TestRedactURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://u:p@example.com/mcp?token=x": "https://example.com/mcp",
		"http://127.0.0.1:8080/mcp#frag":      "http://127.0.0.1:8080/mcp",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}
