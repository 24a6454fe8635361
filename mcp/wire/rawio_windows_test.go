package wire

import (
	"errors"
	"testing"

	"golang.org/x/sys/windows"
)

// TestPipeFileWindowsWriteToAGoneReader: a write to a pipe whose reader
// is closed fails at once, as Windows says it (no EPIPE here).
func TestPipeFileWindowsWriteToAGoneReader(t *testing.T) {
	r, w := rawPipe(t)
	r.Close()
	_, err := w.Write([]byte("hello\n"))
	if !errors.Is(err, windows.ERROR_NO_DATA) && !errors.Is(err, windows.ERROR_BROKEN_PIPE) {
		t.Fatalf("write with no reader: %v, want ERROR_NO_DATA or ERROR_BROKEN_PIPE", err)
	}
}
