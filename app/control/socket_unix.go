//go:build unix

package control

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
)

// SocketPath is the control socket of the instance using data dir data.
func SocketPath(data string) string { return filepath.Join(data, "mcptray.sock") }

// Listen listens on the control socket of data dir data, readable and
// writable by its owner alone (0600). A socket left by an instance that
// was killed is removed first: the caller holds data's lock.
func Listen(data string) (net.Listener, error) {
	sock := SocketPath(data)
	os.Remove(sock) // a stale socket from a killed instance; the lock says we own data
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", sock, err)
	}
	if err := os.Chmod(sock, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("securing %s: %w", sock, err)
	}
	return ln, nil
}
