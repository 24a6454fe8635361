package ssh

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/skeema/knownhosts"
	gossh "golang.org/x/crypto/ssh"
	xknownhosts "golang.org/x/crypto/ssh/knownhosts"
)

// Host key status, as test_alias reports it.
const (
	hostKeyKnown = "known"       // matched a known_hosts entry
	hostKeyAdded = "added"       // unknown, and added because the alias accepts new keys
	hostKeyNew   = "unknown"     // unknown and refused
	hostKeyBad   = "changed"     // does not match the known key: refused
	hostKeyNone  = "not-reached" // the handshake never got that far
)

// hostKeyCheck is one connection's view of the host key: the callback for
// the handshake, the algorithms to ask for, and afterwards what was seen.
type hostKeyCheck struct {
	status      string
	fingerprint string // SHA256:… of the key the server presented
	keyType     string
	err         error // why the key was refused
}

// knownHosts checks host keys against one known_hosts file (hashed
// entries, [host]:port entries and several key types per host are
// understood) and appends new ones. The file is reread on every check, so
// an edit (ssh-keygen -R) counts at once.
type knownHosts struct {
	path string
	mu   sync.Mutex // serialises appends to path
}

// callback returns the host key callback and algorithms for addr
// (host:port) on behalf of alias a.
func (k *knownHosts) callback(a Alias, addr string) (gossh.HostKeyCallback, []string, *hostKeyCheck, error) {
	check := &hostKeyCheck{status: hostKeyNone}
	db, err := k.load()
	if err != nil {
		return nil, nil, check, err
	}
	var algos []string
	if db != nil {
		algos = db.HostKeyAlgorithms(addr)
	}
	if len(algos) == 0 {
		// Unknown host: ask for the key OpenSSH would, so the line added
		// (or shown) is the one `ssh` would have used.
		algos = newHostAlgos
	}
	cb := func(hostname string, remote net.Addr, key gossh.PublicKey) error {
		check.fingerprint = gossh.FingerprintSHA256(key)
		check.keyType = key.Type()
		var err error
		if db != nil {
			err = db.HostKeyCallback()(hostname, remote, key)
		} else {
			err = &xknownhosts.KeyError{}
		}
		switch {
		case err == nil:
			check.status = hostKeyKnown
			return nil
		case knownhosts.IsHostKeyChanged(err):
			check.status = hostKeyBad
			check.err = changedKeyError(a, hostname, key, err, k.path)
		case knownhosts.IsHostUnknown(err) && a.AcceptNewHostKey:
			if err := k.add(hostname, remote, key); err != nil {
				check.err = fmt.Errorf("adding the host key of %s to %s: %w", hostname, k.path, err)
				break
			}
			check.status = hostKeyAdded
			return nil
		case knownhosts.IsHostUnknown(err):
			check.status = hostKeyNew
			check.err = fmt.Errorf("host %s (alias %s) is not in %s; it offers the %s key %s. "+
				"Check that fingerprint with the host's owner, then add the key "+
				"(for example: ssh -p %d %s once, or set accept_new_host_key on the alias)",
				hostname, a.Name, k.path, key.Type(), check.fingerprint, a.Port, a.User+"@"+a.Host)
		default:
			check.err = fmt.Errorf("checking the host key of %s against %s: %w", hostname, k.path, err)
		}
		return check.err
	}
	return cb, algos, check, nil
}

// newHostAlgos is OpenSSH's order of preference for host keys, without
// certificates.
var newHostAlgos = []string{
	gossh.KeyAlgoED25519,
	gossh.KeyAlgoECDSA256, gossh.KeyAlgoECDSA384, gossh.KeyAlgoECDSA521,
	gossh.KeyAlgoRSASHA512, gossh.KeyAlgoRSASHA256,
}

// changedKeyError names both fingerprints.
func changedKeyError(a Alias, hostname string, key gossh.PublicKey, err error, path string) error {
	var ke *xknownhosts.KeyError
	errors.As(err, &ke)
	var known []string
	for _, w := range ke.Want {
		known = append(known, fmt.Sprintf("%s %s (%s line %d)", w.Key.Type(), gossh.FingerprintSHA256(w.Key), filepath.Base(w.Filename), w.Line))
	}
	return fmt.Errorf("HOST KEY CHANGED for %s (alias %s): known_hosts has %s, but the server offers %s %s. "+
		"Refusing to connect: this may be an attack. If the change is expected, remove the old entry "+
		"(ssh-keygen -R '%s' -f %s) and connect again",
		hostname, a.Name, strings.Join(known, ", "), key.Type(), gossh.FingerprintSHA256(key), knownhosts.Normalize(hostname), path)
}

// load reads the file; a missing file is an empty database (nil).
func (k *knownHosts) load() (*knownhosts.HostKeyDB, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, err := os.Stat(k.path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	db, err := knownhosts.NewDB(k.path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", k.path, err)
	}
	return db, nil
}

// add appends a line for the host, creating the file (and ~/.ssh) if
// needed.
func (k *knownHosts) add(hostname string, remote net.Addr, key gossh.PublicKey) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(k.path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(k.path, os.O_APPEND|os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	// A file not ending in a newline would glue our line onto its last one.
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			f.Write([]byte("\n"))
		}
	}
	// Only the name the alias uses: the remote address of a jump-host
	// tunnel is meaningless.
	if err := knownhosts.WriteKnownHost(f, hostname, &net.TCPAddr{IP: net.IPv4zero}, key); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
