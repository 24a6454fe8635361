package app

import (
	"bytes"
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

// MaxLogSize is where a log rotates to <name>.log.1: the servers' logs
// and mcptray.log.
const MaxLogSize = 5 << 20

// serverLog appends lines to DATA/logs/<name>.log in the format
// `2026-07-03T12:34:56.789Z [kind] text`, rotating at MaxLogSize. It never
// sees env values: callers pass only server output and lifecycle text.
type serverLog struct {
	file rotatingFile
}

func openServerLog(dir, name string) *serverLog {
	return &serverLog{file: rotatingFile{path: filepath.Join(dir, LogFileName(name)), max: MaxLogSize}}
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
	var b bytes.Buffer
	for _, line := range strings.Split(strings.TrimRight(text, "\r\n"), "\n") {
		fmt.Fprintf(&b, "%s [%s] %s\n", stamp, kind, strings.TrimRight(line, "\r"))
	}
	l.file.Write(b.Bytes())
}

// Close closes the file; a later Write reopens it.
func (l *serverLog) Close() { l.file.Close() }

// rotatingFile appends to path and, when a write would take the file past
// max, renames it to path.1 (replacing the one before) and starts a new
// one. Its folder is created (0700) and the file (0600) on first write.
type rotatingFile struct {
	path string
	max  int64
	// shared: others append to the file too (mcptray's stderr): its size
	// is read from the file before each write, not counted.
	shared bool
	// opened, when set, is called with each file opened (under mu).
	opened func(*os.File)
	// released, when set, is called (under mu) once the file is closed
	// for a rotation, before it is renamed: Windows renames no file that
	// is open, and the daemon log's standard handles let go of it there.
	released func()

	mu   sync.Mutex // guards f and size
	f    *os.File
	size int64
}

// Write appends p, a whole line or several, rotating first if p would
// take the file past max (an empty file takes p whatever its size).
func (r *rotatingFile) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		if err := r.open(os.O_APPEND); err != nil {
			return 0, err
		}
	}
	if r.shared {
		if st, err := r.f.Stat(); err == nil {
			r.size = st.Size()
		}
	}
	if r.size > 0 && r.size+int64(len(p)) > r.max {
		r.f.Close()
		r.f = nil
		if r.released != nil {
			r.released()
		}
		os.Rename(r.path, r.path+".1")
		if err := r.open(os.O_TRUNC); err != nil {
			return 0, err
		}
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	return n, err
}

// open opens path for appending (flag: O_APPEND to keep what is there,
// O_TRUNC after a rotation). Called with mu held.
func (r *rotatingFile) open(flag int) error {
	if err := os.MkdirAll(filepath.Dir(r.path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(r.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|flag, 0o600)
	if err != nil {
		return err
	}
	r.f, r.size = f, 0
	if st, err := f.Stat(); err == nil {
		r.size = st.Size()
	}
	if r.opened != nil {
		r.opened(f)
	}
	return nil
}

// Close closes the file; a later Write reopens it.
func (r *rotatingFile) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f != nil {
		r.f.Close()
		r.f = nil
	}
}
