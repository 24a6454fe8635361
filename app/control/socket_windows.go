package control

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"

	"github.com/mcptray/mcptray/app/config"
)

// SocketPath is the control socket of the instance using data dir data:
// on Windows the named pipe \\.\pipe\mcptray-<user> for the system data
// dir (config.SystemDataDir), and \\.\pipe\mcptray-<user>-<hash> for any
// other, hash being the first 12 hex digits of the SHA-256 of the data
// dir's absolute, cleaned, lower-cased path. Pipe names are one namespace
// for the whole machine: the user name keeps two people's instances
// apart, the hash two data dirs of one person (as the tests run them).
func SocketPath(data string) string {
	name := "mcptray-" + pipeUser()
	abs, err := filepath.Abs(data)
	if err != nil {
		abs = data
	}
	if sys, err := config.SystemDataDir(); err != nil || !strings.EqualFold(filepath.Clean(sys), filepath.Clean(abs)) {
		sum := sha256.Sum256([]byte(strings.ToLower(filepath.Clean(abs))))
		name += "-" + hex.EncodeToString(sum[:6])
	}
	return `\\.\pipe\` + name
}

// pipeUser is the account name of the process's user, without its domain
// or machine, as it goes into the pipe's name ("-" when unknown: the DACL
// still admits this user alone).
var pipeUser = sync.OnceValue(func() string {
	u, err := user.Current()
	if err != nil {
		return "-"
	}
	name := u.Username
	if i := strings.LastIndexByte(name, '\\'); i >= 0 {
		name = name[i+1:]
	}
	if name == "" {
		return "-"
	}
	return name
})

// userOnlySDDL is the security descriptor of the control pipe: a
// protected DACL that grants the current user everything, and nobody
// else anything.
func userOnlySDDL() (string, error) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", fmt.Errorf("reading the current user's SID: %w", err)
	}
	return "D:P(A;;GA;;;" + tu.User.Sid.String() + ")", nil
}

// probeTimeout bounds a dial that only asks whether an instance serves a
// pipe: while all its instances are busy, a dial waits for a free one.
const probeTimeout = 2 * time.Second

// holdTimeout bounds the dial that takes Wine's placeholder instance of
// our own pipe: it always answers, but a busy machine can make wineserver
// take seconds (CI saw 2 s run out while builds ran beside it).
const holdTimeout = 20 * time.Second

// Listen listens on the control pipe of data dir data (SocketPath), which
// only the current user may open (userOnlySDDL). Another instance there
// (a data dir whose name hashes the same, or a stray process) is an
// error: the caller holds data's lock, but a second ListenPipe on a name
// in use succeeds under Wine, so the pipe is dialled first.
func Listen(data string) (net.Listener, error) {
	pipe := SocketPath(data)
	if c, err := winio.DialPipe(pipe, ptr(probeTimeout)); err == nil || !notRunning(err) {
		if c != nil {
			c.Close()
		}
		return nil, fmt.Errorf("listening on %s: another process serves it", pipe)
	}
	sddl, err := userOnlySDDL()
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", pipe, err)
	}
	// Message mode gives connections a CloseWrite (a zero-byte message
	// the other end reads as EOF): connect's relay half-closes with it.
	ln, err := winio.ListenPipe(pipe, &winio.PipeConfig{SecurityDescriptor: sddl, MessageMode: true, InputBufferSize: 64 << 10, OutputBufferSize: 64 << 10})
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", pipe, err)
	}
	if !underWine() {
		return ln, nil
	}
	// Wine hands the first client go-winio's placeholder instance, which
	// is never accepted: that client's writes block, and so would Accept.
	// Taking the placeholder ourselves, for the listener's life, leaves
	// the real instances to clients (docs: PLATFORM.md, Wine 8).
	hold, err := winio.DialPipe(pipe, ptr(holdTimeout))
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("listening on %s: taking Wine's placeholder instance: %w", pipe, err)
	}
	return &heldListener{Listener: ln, hold: hold}, nil
}

// heldListener is a pipe listener with the connection that holds its
// placeholder instance under Wine; Close closes both.
type heldListener struct {
	net.Listener
	hold net.Conn
}

func (l *heldListener) Close() error {
	err := l.Listener.Close()
	l.hold.Close()
	return err
}

func ptr[T any](v T) *T { return &v }
