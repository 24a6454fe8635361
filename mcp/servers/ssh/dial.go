package ssh

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// Dial timings.
const (
	dialTimeout      = 15 * time.Second // TCP connect
	handshakeTimeout = 30 * time.Second // SSH handshake and authentication
)

// dialed is a fresh connection and what its handshake saw.
type dialed struct {
	client  *gossh.Client
	jumps   []*gossh.Client // the jump hosts' connections, outermost first
	auth    string          // the method that worked, for test_alias
	hostKey *hostKeyCheck
}

func (d *dialed) close() {
	d.client.Close()
	for i := len(d.jumps) - 1; i >= 0; i-- {
		d.jumps[i].Close()
	}
}

// dial connects to a, through its jump hosts, asking for secrets with ask
// before the handshake starts (a server gives a login only a minute or
// two, less than a person may take to answer).
func (s *Server) dial(ctx context.Context, ask asker, list []Alias, a Alias) (*dialed, error) {
	if err := checkJumps(list, a); err != nil {
		return nil, err
	}
	var jumps []*gossh.Client
	var netConn net.Conn
	var err error
	if a.Jump != "" {
		j, _ := findAlias(list, a.Jump)
		jd, err := s.dial(ctx, ask, list, j)
		if err != nil {
			return nil, fmt.Errorf("connecting to jump host %s: %w", j.Name, err)
		}
		jumps = append(jd.jumps, jd.client)
		netConn, err = jd.client.DialContext(ctx, "tcp", a.Addr())
		if err != nil {
			jd.close()
			return nil, fmt.Errorf("connecting to %s through jump host %s: %w", a.Addr(), j.Name, err)
		}
	}
	closeJumps := func() {
		for i := len(jumps) - 1; i >= 0; i-- {
			jumps[i].Close()
		}
	}

	auths, method, done, err := s.authMethods(ctx, ask, a)
	if err != nil {
		if netConn != nil {
			netConn.Close()
		}
		closeJumps()
		return nil, err
	}
	defer done()
	cb, algos, check, err := s.known.callback(a, a.Addr())
	if err != nil {
		if netConn != nil {
			netConn.Close()
		}
		closeJumps()
		return nil, err
	}
	cfg := &gossh.ClientConfig{
		User:              a.User,
		Auth:              auths,
		HostKeyCallback:   cb,
		HostKeyAlgorithms: algos,
	}
	if netConn == nil {
		d := net.Dialer{Timeout: dialTimeout}
		if netConn, err = d.DialContext(ctx, "tcp", a.Addr()); err != nil {
			return nil, fmt.Errorf("connecting to %s (alias %s): %w", a.Addr(), a.Name, err)
		}
	}
	// The handshake ends at handshakeTimeout or when ctx ends, whichever
	// is first. SetDeadline does not work on a tunnelled conn, so close it.
	hsCtx, cancel := context.WithTimeout(ctx, handshakeTimeout)
	stop := context.AfterFunc(hsCtx, func() { netConn.Close() })
	c, chans, reqs, err := gossh.NewClientConn(netConn, a.Addr(), cfg)
	stopped := stop()
	cancel()
	if err != nil {
		netConn.Close()
		closeJumps()
		return nil, &dialError{check: check, err: s.handshakeError(ctx, a, method, check, err, !stopped)}
	}
	return &dialed{client: gossh.NewClient(c, chans, reqs), jumps: jumps, auth: method, hostKey: check}, nil
}

// handshakeError turns a failed handshake into a message for a person, and
// drops a login password the server refused.
func (s *Server) handshakeError(ctx context.Context, a Alias, method string, check *hostKeyCheck, err error, timedOut bool) error {
	switch {
	case check.err != nil:
		return check.err
	case strings.Contains(err.Error(), "unable to authenticate"):
		if a.Auth == AuthPassword {
			s.secrets.drop(a.Name, loginPassword)
			return fmt.Errorf("%s (alias %s) refused the login password; the next call asks for it again", a.Dest(), a.Name)
		}
		return fmt.Errorf("%s (alias %s) refused the login with %s", a.Dest(), a.Name, method)
	case ctx.Err() != nil:
		return fmt.Errorf("connecting to %s (alias %s): %w", a.Addr(), a.Name, ctx.Err())
	case timedOut:
		return fmt.Errorf("connecting to %s (alias %s): no SSH handshake within %s", a.Addr(), a.Name, handshakeTimeout)
	}
	return fmt.Errorf("connecting to %s (alias %s): %w", a.Addr(), a.Name, err)
}

// authMethods gets what the alias's auth needs, asking for a password or
// passphrase when needed; method describes it for test_alias. done ends
// the agent connection once the handshake is over.
func (s *Server) authMethods(ctx context.Context, ask asker, a Alias) (auths []gossh.AuthMethod, method string, done func(), err error) {
	done = func() {}
	switch a.Auth {
	case AuthPassword:
		pw, err := s.secret(ctx, ask, prompt{alias: a, kind: loginPassword, what: "to log in"})
		if err != nil {
			return nil, "", done, err
		}
		kbd := func(_, _ string, questions []string, echos []bool) ([]string, error) {
			answers := make([]string, len(questions))
			for i := range questions {
				if !echos[i] {
					answers[i] = pw
				}
			}
			return answers, nil
		}
		return []gossh.AuthMethod{gossh.Password(pw), gossh.KeyboardInteractive(kbd)}, "password", done, nil
	case AuthAgent:
		sock := os.Getenv("SSH_AUTH_SOCK")
		if sock == "" {
			return nil, "", done, fmt.Errorf("alias %s uses the SSH agent, but SSH_AUTH_SOCK is not set where mcptray runs", a.Name)
		}
		conn, err := net.DialTimeout("unix", sock, 5*time.Second)
		if err != nil {
			return nil, "", done, fmt.Errorf("alias %s uses the SSH agent, which does not answer at SSH_AUTH_SOCK: %w", a.Name, err)
		}
		ag := agent.NewClient(conn)
		signers, err := ag.Signers()
		if err != nil {
			conn.Close()
			return nil, "", done, fmt.Errorf("listing the SSH agent's keys: %w", err)
		}
		if len(signers) == 0 {
			conn.Close()
			return nil, "", done, fmt.Errorf("alias %s uses the SSH agent, which holds no keys (ssh-add adds one)", a.Name)
		}
		// The agent signs during the handshake: keep it until then.
		return []gossh.AuthMethod{gossh.PublicKeys(signers...)}, fmt.Sprintf("agent (%d keys)", len(signers)), func() { conn.Close() }, nil
	default:
		signer, path, err := s.keySigner(ctx, ask, a)
		if err != nil {
			return nil, "", done, err
		}
		return []gossh.AuthMethod{gossh.PublicKeys(signer)}, "key " + path, done, nil
	}
}

// defaultKeys are tried in order when an alias names no key.
var defaultKeys = []string{"id_ed25519", "id_ecdsa", "id_rsa"}

// keySigner reads the alias's private key, asking for its passphrase only
// when the key turns out to be encrypted.
func (s *Server) keySigner(ctx context.Context, ask asker, a Alias) (gossh.Signer, string, error) {
	path := expandHome(a.KeyPath, s.home)
	if path == "" {
		for _, name := range defaultKeys {
			p := filepath.Join(s.home, ".ssh", name)
			if _, err := os.Stat(p); err == nil {
				path = p
				break
			}
		}
		if path == "" {
			return nil, "", fmt.Errorf("alias %s uses key auth without a key path, and none of ~/.ssh/%s exists", a.Name, strings.Join(defaultKeys, ", "))
		}
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", fmt.Errorf("alias %s: key file %s does not exist", a.Name, path)
	}
	if err != nil {
		return nil, "", fmt.Errorf("alias %s: reading key %s: %w", a.Name, path, err)
	}
	signer, err := gossh.ParsePrivateKey(data)
	var missing *gossh.PassphraseMissingError
	if errors.As(err, &missing) {
		pass, err := s.secret(ctx, ask, prompt{alias: a, kind: keyPassphrase, key: path, what: "to log in"})
		if err != nil {
			return nil, "", err
		}
		signer, err = gossh.ParsePrivateKeyWithPassphrase(data, []byte(pass))
		if errors.Is(err, x509.IncorrectPasswordError) {
			s.secrets.drop(a.Name, keyPassphrase)
			return nil, "", fmt.Errorf("the passphrase for key %s (alias %s) is wrong; the next call asks for it again", path, a.Name)
		}
		if err != nil {
			return nil, "", fmt.Errorf("alias %s: decrypting key %s: %w", a.Name, path, err)
		}
		return signer, path, nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("alias %s: %s is not a private key this server can use: %w", a.Name, path, err)
	}
	return signer, path, nil
}
