package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Log kinds besides stderr/stdout and the MCP logging levels.
const (
	logLifecycle = "lifecycle"
	logInbox     = "inbox" // requests refused by the inbox's limits
)

// maxLogSize is where a server's log rotates to <name>.log.1.
const maxLogSize = 5 << 20

// serverLog appends lines to DATA/logs/<name>.log in the format
// `2026-07-03T12:34:56.789Z [kind] text`, rotating at maxLogSize. It never
// sees env values: callers pass only server output and lifecycle text.
type serverLog struct {
	path string

	mu   sync.Mutex // guards f and size
	f    *os.File
	size int64
}

func openServerLog(dir, name string) *serverLog {
	return &serverLog{path: filepath.Join(dir, LogFileName(name))}
}

// LogFileName is the file a server's log is written to, the name sanitised to
// [A-Za-z0-9._-].
func LogFileName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" || strings.Trim(s, ".") == "" {
		s = "_" + s
	}
	return s + ".log"
}

// Write appends one line; multi-line text becomes several lines of the same
// kind. Errors are dropped: a full disk must not stop a server.
func (l *serverLog) Write(kind, text string) {
	stamp := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(text, "\r\n"), "\n") {
		fmt.Fprintf(&b, "%s [%s] %s\n", stamp, kind, strings.TrimRight(line, "\r"))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
			return
		}
		f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return
		}
		st, _ := f.Stat()
		l.f, l.size = f, st.Size()
	}
	if l.size > 0 && l.size+int64(b.Len()) > maxLogSize {
		l.f.Close()
		os.Rename(l.path, l.path+".1")
		f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
		if err != nil {
			l.f = nil
			return
		}
		l.f, l.size = f, 0
	}
	n, _ := l.f.WriteString(b.String())
	l.size += int64(n)
}

// Close closes the file; a later Write reopens it.
func (l *serverLog) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}
