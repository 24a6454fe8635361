package testkit

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer that several goroutines may write while a test
// reads it: a logger's or a process's output. The zero value is ready.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer // guarded by mu
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
