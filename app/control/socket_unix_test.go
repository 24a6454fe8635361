//go:build unix

package control

import (
	"os"
	"testing"
)

func TestListenSocketMode(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	ln, err := Listen(data)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	fi, err := os.Stat(SocketPath(data))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode = %v, %v; want 0600", fi, err)
	}
}
