//go:build unix

package ssh

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	gliderssh "github.com/gliderlabs/ssh"
	"github.com/pkg/sftp"
	gossh "golang.org/x/crypto/ssh"
)

// testServer is a real SSH server (github.com/gliderlabs/ssh) on
// 127.0.0.1 with an SFTP subsystem. Commands run like sshd runs them:
// `/bin/sh -c COMMAND` in a new session, in the server's home folder, with
// a bin folder of fakes (sudo, systemctl, journalctl) first on PATH. The
// server does not kill a command when its channel closes (sshd does not
// either), so the client's kill path is what ends a timed-out command.
type testServer struct {
	t        *testing.T
	addr     string
	port     int
	home     string // the remote user's home (a temp dir)
	bin      string // the fakes
	ed25519  gossh.Signer
	ecdsa    gossh.Signer
	password string // login password ("" = password auth off)
	sudoPW   string // the fake sudo's password ("" = NOPASSWD)
	sudoLog  string // the fake sudo's invocations, one per line

	mu         sync.Mutex // guards the fields below
	authorized []gossh.PublicKey
	conns      []net.Conn
	accepted   int
	closed     int
}

type serverOption func(*testServer)

func withPassword(pw string) serverOption { return func(s *testServer) { s.password = pw } }
func withSudoPassword(pw string) serverOption {
	return func(s *testServer) { s.sudoPW = pw }
}

func startServer(t *testing.T, opts ...serverOption) *testServer {
	t.Helper()
	dir := t.TempDir()
	ts := &testServer{t: t, home: filepath.Join(dir, "home"), bin: filepath.Join(dir, "bin"), sudoLog: filepath.Join(dir, "sudo.log")}
	for _, o := range opts {
		o(ts)
	}
	must(t, os.MkdirAll(ts.home, 0o755))
	must(t, os.MkdirAll(ts.bin, 0o755))
	for name, script := range fakes {
		must(t, os.WriteFile(filepath.Join(ts.bin, name), []byte(script), 0o755))
	}
	if ts.sudoPW != "" {
		must(t, os.WriteFile(filepath.Join(dir, "sudo.pw"), []byte(ts.sudoPW), 0o600))
	}
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	ts.ed25519, _ = gossh.NewSignerFromKey(edKey)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ts.ecdsa, _ = gossh.NewSignerFromKey(ecKey)

	env := []string{
		"PATH=" + ts.bin + ":" + os.Getenv("PATH"),
		"HOME=" + ts.home, "SHELL=/bin/sh", "LANG=C.UTF-8",
		"FAKE_SUDO_LOG=" + ts.sudoLog, "FAKE_SUDO_PASSWORD_FILE=" + filepath.Join(dir, "sudo.pw"),
		"FAKE_STATE=" + dir,
	}
	srv := &gliderssh.Server{
		Handler: func(s gliderssh.Session) { ts.exec(s, env) },
		SubsystemHandlers: map[string]gliderssh.SubsystemHandler{
			"sftp": func(s gliderssh.Session) {
				srv, err := sftp.NewServer(s, sftp.WithServerWorkingDirectory(ts.home))
				if err != nil {
					return
				}
				srv.Serve()
				srv.Close()
			},
		},
		PublicKeyHandler: func(_ gliderssh.Context, key gliderssh.PublicKey) bool {
			ts.mu.Lock()
			defer ts.mu.Unlock()
			for _, k := range ts.authorized {
				if gliderssh.KeysEqual(k, key) {
					return true
				}
			}
			return false
		},
		LocalPortForwardingCallback: func(gliderssh.Context, string, uint32) bool { return true },
		ChannelHandlers: map[string]gliderssh.ChannelHandler{
			"session":      gliderssh.DefaultSessionHandler,
			"direct-tcpip": gliderssh.DirectTCPIPHandler,
		},
		ConnCallback: func(_ gliderssh.Context, c net.Conn) net.Conn {
			ts.mu.Lock()
			defer ts.mu.Unlock()
			ts.accepted++
			ts.conns = append(ts.conns, c)
			return &countingConn{Conn: c, ts: ts}
		},
	}
	if ts.password != "" {
		srv.PasswordHandler = func(_ gliderssh.Context, pw string) bool { return pw == ts.password }
	}
	srv.AddHostKey(ts.ed25519)
	srv.AddHostKey(ts.ecdsa)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	ts.addr = l.Addr().String()
	ts.port = l.Addr().(*net.TCPAddr).Port
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return ts
}

// countingConn counts connections the server saw end.
type countingConn struct {
	net.Conn
	ts   *testServer
	once sync.Once
}

func (c *countingConn) Close() error {
	c.once.Do(func() {
		c.ts.mu.Lock()
		c.ts.closed++
		c.ts.mu.Unlock()
	})
	return c.Conn.Close()
}

func (ts *testServer) authorize(k gossh.PublicKey) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.authorized = append(ts.authorized, k)
}

// stats returns how many connections were accepted and have ended.
func (ts *testServer) stats() (accepted, closed int) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.accepted, ts.closed
}

// dropAll cuts every connection, as a rebooted host or a NAT timeout would.
func (ts *testServer) dropAll() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, c := range ts.conns {
		c.Close()
	}
	ts.conns = nil
}

func (ts *testServer) exec(s gliderssh.Session, env []string) {
	cmd := exec.Command("/bin/sh", "-c", s.RawCommand())
	cmd.Dir = ts.home
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stdout = s
	cmd.Stderr = s.Stderr()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		s.Exit(255)
		return
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(s.Stderr(), err)
		s.Exit(255)
		return
	}
	go func() {
		io.Copy(stdin, s)
		stdin.Close()
	}()
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		s.Exit(0)
	case errors.As(err, &ee):
		if st, ok := ee.Sys().(syscall.WaitStatus); ok && st.Signaled() {
			s.Exit(128 + int(st.Signal()))
			return
		}
		s.Exit(ee.ExitCode())
	default:
		s.Exit(255)
	}
}

// sudoCalls returns the fake sudo's recorded invocations.
func (ts *testServer) sudoCalls() []string {
	b, _ := os.ReadFile(ts.sudoLog)
	return strings.Fields(string(b))
}

// fakes are the commands the test server puts first on PATH. The fake
// sudo understands what mcptray uses: -n, -k, -S, -p PROMPT, -u USER, -v,
// --; with FAKE_SUDO_PASSWORD_FILE present it wants that password on
// stdin (reading it like sudo, leaving the rest of stdin to the command),
// and says what real sudo says when it is wrong.
var fakes = map[string]string{
	"sudo": `#!/bin/sh
nonint=0; usestdin=0; user=root; validate=0
while [ $# -gt 0 ]; do
	case "$1" in
	-n) nonint=1 ;;
	-k) ;;
	-S) usestdin=1 ;;
	-v) validate=1 ;;
	-p) shift ;;
	-u) shift; user=$1 ;;
	--) shift; break ;;
	-*) echo "sudo: unknown option $1" >&2; exit 1 ;;
	*) break ;;
	esac
	shift
done
echo "$user:n=$nonint:S=$usestdin:v=$validate" >>"$FAKE_SUDO_LOG"
if [ -f "$FAKE_SUDO_PASSWORD_FILE" ]; then
	if [ $nonint = 1 ]; then echo "sudo: a password is required" >&2; exit 1; fi
	if [ $usestdin = 0 ]; then echo "sudo: a terminal is required to read the password" >&2; exit 1; fi
	want=$(cat "$FAKE_SUDO_PASSWORD_FILE")
	tries=0
	while :; do
		if ! IFS= read -r pw; then
			if [ $tries = 0 ]; then echo "sudo: no password was provided" >&2; else echo "sudo: $tries incorrect password attempt" >&2; fi
			exit 1
		fi
		[ "$pw" = "$want" ] && break
		tries=$((tries+1))
		echo "Sorry, try again." >&2
		if [ $tries = 3 ]; then echo "sudo: 3 incorrect password attempts" >&2; exit 1; fi
	done
fi
[ $validate = 1 ] && exit 0
if [ "$user" = forbidden ]; then
	printf "Sorry, user %s is not allowed to execute '%s' as forbidden on %s.\n" "$(id -un)" "$*" "$(hostname)" >&2
	exit 1
fi
FAKE_SUDO_USER=$user exec "$@"
`,
	"systemctl": `#!/bin/sh
echo "$*" >>"$FAKE_STATE/systemctl.log"
case "$1" in
show)
	unit=$(eval echo \${$#})
	state=inactive; [ -f "$FAKE_STATE/active" ] && state=active
	echo "Id=$unit.service"; echo "Description=Fake $unit"; echo "LoadState=loaded"
	echo "ActiveState=$state"; echo "SubState=running"; echo "UnitFileState=enabled"; echo "MainPID=4242"
	echo "ActiveEnterTimestamp=Mon 2026-01-05 10:00:00 UTC" ;;
start|restart)
	[ "$FAKE_SUDO_USER" = root ] || { echo "Failed to $1 unit: Access denied" >&2; exit 4; }
	touch "$FAKE_STATE/active" ;;
stop)
	[ "$FAKE_SUDO_USER" = root ] || { echo "Failed to stop unit: Access denied" >&2; exit 4; }
	rm -f "$FAKE_STATE/active" ;;
esac
`,
	"journalctl": `#!/bin/sh
echo "$*" >>"$FAKE_STATE/journalctl.log"
echo "2026-01-05T10:00:00+0000 host fake[4242]: started"
echo "2026-01-05T10:00:01+0000 host fake[4242]: ready"
`,
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// clientKey makes a client key pair and writes the private key (OpenSSH
// format, encrypted when passphrase is set) to dir.
func clientKey(t *testing.T, dir, passphrase string) (path string, pub gossh.PublicKey) {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	var block *pem.Block
	var err error
	if passphrase == "" {
		block, err = gossh.MarshalPrivateKey(priv, "test")
	} else {
		block, err = gossh.MarshalPrivateKeyWithPassphrase(priv, "test", []byte(passphrase))
	}
	must(t, err)
	f, err := os.CreateTemp(dir, "id_test_*")
	must(t, err)
	path = f.Name()
	f.Close()
	must(t, os.WriteFile(path, pem.EncodeToMemory(block), 0o600))
	signer, err := gossh.NewSignerFromKey(priv)
	must(t, err)
	return path, signer.PublicKey()
}
