//go:build unix

package ssh

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
	xknownhosts "golang.org/x/crypto/ssh/knownhosts"
)

// hostAlias adds an alias with an authorised key and no known_hosts entry.
func hostAlias(e *env, ts *testServer, name string, acceptNew bool) {
	e.t.Helper()
	path, pub := clientKey(e.t, e.home, "")
	ts.authorize(pub)
	must(e.t, e.store.Save(append(mustLoad(e), Alias{Name: name, Host: "127.0.0.1", Port: ts.port, User: "tester",
		Auth: AuthKey, KeyPath: path, Sudo: SudoNone, AcceptNewHostKey: acceptNew})))
}

func mustLoad(e *env) []Alias {
	l, err := e.store.Load()
	must(e.t, err)
	return l
}

func writeKnown(t *testing.T, path string, lines ...string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o700))
	must(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
}

func TestUnknownHostRefusedWithFingerprint(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	e := newEnv(t)
	hostAlias(e, ts, "new", false)
	msg := e.fail("exec", map[string]any{"alias": "new", "command": "true"})
	if !strings.Contains(msg, "is not in "+e.known) || !strings.Contains(msg, fingerprint(ts.ed25519)) {
		t.Errorf("unknown host: %s (want the ed25519 fingerprint %s)", msg, fingerprint(ts.ed25519))
	}
	var res TestResult
	r := e.call("test_alias", map[string]any{"name": "new"}, &res)
	if !r.IsError || res.Connected || res.HostKey.Status != "unknown" || res.HostKey.Fingerprint != fingerprint(ts.ed25519) {
		t.Errorf("test_alias = %+v", res)
	}
	if _, err := os.Stat(e.known); !os.IsNotExist(err) {
		t.Errorf("known_hosts was written for a refused host: %v", err)
	}
}

func TestAcceptNewHostKeyAppends(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	e := newEnv(t)
	// An existing file without a final newline, for another host.
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	op, _ := gossh.NewPublicKey(other.Public())
	must(t, os.MkdirAll(filepath.Dir(e.known), 0o700))
	must(t, os.WriteFile(e.known, []byte(xknownhosts.Line([]string{"example.org"}, op)), 0o600))
	hostAlias(e, ts, "tofu", true)

	var res TestResult
	e.ok("test_alias", map[string]any{"name": "tofu"}, &res)
	if res.HostKey.Status != "added" || res.HostKey.Fingerprint != fingerprint(ts.ed25519) {
		t.Errorf("first connection: %+v", res.HostKey)
	}
	b, _ := os.ReadFile(e.known)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	want := fmt.Sprintf("[127.0.0.1]:%d ssh-ed25519 ", ts.port)
	if len(lines) != 2 || !strings.HasPrefix(lines[1], want) {
		t.Errorf("known_hosts:\n%s\nwant a second line starting %q", b, want)
	}
	e.ok("test_alias", map[string]any{"name": "tofu"}, &res)
	if res.HostKey.Status != "known" {
		t.Errorf("second connection: %+v", res.HostKey)
	}
}

// A changed key is refused with both fingerprints, even for an alias that
// accepts new keys.
func TestChangedHostKeyRefused(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	e := newEnv(t)
	_, old, _ := ed25519.GenerateKey(rand.Reader)
	oldPub, _ := gossh.NewPublicKey(old.Public())
	writeKnown(t, e.known, xknownhosts.Line([]string{xknownhosts.Normalize(ts.addr)}, oldPub))
	hostAlias(e, ts, "moved", true)
	msg := e.fail("exec", map[string]any{"alias": "moved", "command": "true"})
	for _, want := range []string{"HOST KEY CHANGED", gossh.FingerprintSHA256(oldPub), fingerprint(ts.ed25519), "ssh-keygen -R"} {
		if !strings.Contains(msg, want) {
			t.Errorf("changed key: %s\nlacks %q", msg, want)
		}
	}
	var res TestResult
	e.call("test_alias", map[string]any{"name": "moved"}, &res)
	if res.HostKey.Status != "changed" {
		t.Errorf("test_alias host key = %+v", res.HostKey)
	}
}

// Hashed entries and a host known only by its ecdsa key (while the server
// also offers ed25519, which x/crypto's knownhosts alone would report as a
// mismatch).
func TestKnownHostsHashedAndOtherKeyType(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	e := newEnv(t)
	hostAlias(e, ts, "h", false)

	hashed := xknownhosts.Line([]string{xknownhosts.HashHostname(xknownhosts.Normalize(ts.addr))}, ts.ed25519.PublicKey())
	writeKnown(t, e.known, "# comment", hashed)
	var res TestResult
	e.ok("test_alias", map[string]any{"name": "h"}, &res)
	if res.HostKey.Status != "known" || res.HostKey.Type != "ssh-ed25519" {
		t.Errorf("hashed entry: %+v", res.HostKey)
	}

	writeKnown(t, e.known, xknownhosts.Line([]string{xknownhosts.Normalize(ts.addr)}, ts.ecdsa.PublicKey()))
	e.ok("test_alias", map[string]any{"name": "h"}, &res)
	if res.HostKey.Status != "known" || res.HostKey.Fingerprint != fingerprint(ts.ecdsa) {
		t.Errorf("ecdsa-only entry: %+v (want %s)", res.HostKey, fingerprint(ts.ecdsa))
	}

	// The same host on port 22 is a different entry: still unknown. (The
	// pooled connection, already checked, would be reused: drop it.)
	writeKnown(t, e.known, xknownhosts.Line([]string{"127.0.0.1"}, ts.ed25519.PublicKey()))
	e.srv.pool.drop("h")
	if msg := e.fail("exec", map[string]any{"alias": "h", "command": "true"}); !strings.Contains(msg, "is not in") {
		t.Errorf("port 22 entry used for another port: %s", msg)
	}
}
