//go:build unix

package wire

import (
	"errors"
	"os"
	"syscall"
	"testing"
	"time"
)

// A pipe's reads wait in the poller on Unix: Close and a deadline end
// them. Windows' pipes are synchronous (rawio_windows.go).

func TestPipeFileCloseEndsAWaitingRead(t *testing.T) {
	t.Parallel()
	r, _ := rawPipe(t)
	errc := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 10))
		errc <- err
	}()
	waitInPoller(t, "TestPipeFileCloseEndsAWaitingRead")
	r.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, os.ErrClosed) {
			t.Fatalf("read after Close: %v, want os.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the read")
	}
	if _, err := r.Read(make([]byte, 10)); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("read of a closed file: %v, want os.ErrClosed", err)
	}
}

func TestPipeFileReadDeadline(t *testing.T) {
	t.Parallel()
	r, _ := rawPipe(t)
	r.f.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, err := r.Read(make([]byte, 10))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past its deadline: %v, want os.ErrDeadlineExceeded", err)
	}
}

func TestPipeFileWriteToAGoneReader(t *testing.T) {
	t.Parallel()
	r, w := rawPipe(t)
	r.Close()
	_, err := w.Write([]byte("hello\n"))
	if !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("write with no reader: %v, want EPIPE (and no SIGPIPE)", err)
	}
}
