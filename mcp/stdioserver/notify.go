package stdioserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

// stdout is the one writer of standard output: the SDK's messages
// (Transport) and Notify's lines go through it, so a line is never
// written into the middle of another.
var stdout = &lineWriter{w: os.Stdout}

// lineWriter writes whole lines to w under one mutex: a Write's complete
// lines at once, a trailing partial line kept until its newline comes.
type lineWriter struct {
	mu      sync.Mutex // guards w's writes and pending
	w       io.Writer
	pending []byte // a partial line of the SDK's, not yet written
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending = append(l.pending, p...)
	i := bytes.LastIndexByte(l.pending, '\n')
	if i < 0 {
		return len(p), nil
	}
	_, err := l.w.Write(l.pending[:i+1])
	l.pending = append(l.pending[:0], l.pending[i+1:]...)
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// line writes one whole line (without its newline) at once.
func (l *lineWriter) line(b []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := l.w.Write(append(b, '\n'))
	return err
}

// notification is a JSON-RPC notification.
type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// Notify writes a JSON-RPC notification of method with params as one
// line on stdout, beside the SDK's messages and never inside one. The
// built-in servers use it for the events mcptray's pipeline stores
// (event/…), which the SDK has no call for.
func Notify(method string, params any) error { return notifyTo(stdout, method, params) }

func notifyTo(l *lineWriter, method string, params any) error {
	b, err := json.Marshal(notification{JSONRPC: "2.0", Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("encoding notification %s: %w", method, err)
	}
	return l.line(b)
}
