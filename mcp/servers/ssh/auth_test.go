//go:build unix

package ssh

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

func TestPasswordLoginAskedOnceAndCached(t *testing.T) {
	t.Parallel()
	const pw = "pw-login-7f3a"
	ts := startServer(t, withPassword(pw))
	e := newEnv(t)
	e.trust(ts)
	must(t, e.srv.opts.Aliases.Save([]Alias{{Name: "pwbox", Host: "127.0.0.1", Port: ts.port, User: "tester", Auth: AuthPassword, Sudo: SudoNone}}))

	e.asks.push(answer{value: "wrong-one"})
	msg := e.fail("exec", map[string]any{"alias": "pwbox", "command": "true"})
	if !strings.Contains(msg, "refused the login password; the next call asks for it again") {
		t.Errorf("wrong password: %s", msg)
	}
	if strings.Contains(msg, "wrong-one") {
		t.Errorf("the error shows the password: %s", msg)
	}
	asked := e.asks.last()
	if asked == nil || !strings.Contains(asked.Message, `SSH alias "pwbox"`) || !strings.Contains(asked.Message, "login password of tester") {
		t.Fatalf("elicitation message: %+v", asked)
	}
	schema, _ := json.Marshal(asked.RequestedSchema)
	if !strings.Contains(string(schema), `"writeOnly":true`) {
		t.Errorf("the password field is not writeOnly: %s", schema)
	}

	// Asked again after the failure; the right one works and is cached.
	e.asks.push(answer{value: pw})
	var out execOut
	e.ok("exec", map[string]any{"alias": "pwbox", "command": "echo in"}, &out)
	e.srv.pool.drop("pwbox") // a new connection needs the password again
	e.ok("exec", map[string]any{"alias": "pwbox", "command": "echo in"}, &out)
	if n := len(e.asks.asked()); n != 2 {
		t.Errorf("asked %d times, want 2 (the cache should answer the third login)", n)
	}

	// After the TTL the password is asked again.
	e.clock.advance(DefaultSecretTTL + time.Second)
	e.srv.pool.drop("pwbox")
	e.asks.push(answer{value: pw})
	e.ok("exec", map[string]any{"alias": "pwbox", "command": "true"}, &out)
	if n := len(e.asks.asked()); n != 3 {
		t.Errorf("asked %d times after the TTL, want 3", n)
	}

	// Declined and cancelled prompts are reported as such.
	e.clock.advance(DefaultSecretTTL + time.Second)
	e.srv.pool.drop("pwbox")
	e.asks.push(answer{action: "decline"})
	if msg := e.fail("exec", map[string]any{"alias": "pwbox", "command": "true"}); !strings.Contains(msg, "the login password for alias pwbox was declined") {
		t.Errorf("declined: %s", msg)
	}
	if msg := e.fail("exec", map[string]any{"alias": "pwbox", "command": "true"}); !strings.Contains(msg, "was not given (the request was cancelled)") {
		t.Errorf("cancelled: %s", msg)
	}
}

func TestKeyLogin(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	e := newEnv(t)
	e.keyAlias("box", ts)
	var out execOut
	e.ok("exec", map[string]any{"alias": "box", "command": "echo key"}, &out)
	if out.Stdout != "key\n" || len(e.asks.asked()) != 0 {
		t.Errorf("stdout %q, asked %v", out.Stdout, e.asks.asked())
	}

	// A key the server does not know.
	path, _ := clientKey(t, t.TempDir(), "")
	e.keyAlias("stranger", ts, func(a *Alias) { a.KeyPath = path })
	ts.mu.Lock()
	ts.authorized = ts.authorized[:len(ts.authorized)-1] // keyAlias authorised a key of its own; path's key is not
	ts.mu.Unlock()
	if msg := e.fail("exec", map[string]any{"alias": "stranger", "command": "true"}); !strings.Contains(msg, "refused the login with key "+path) {
		t.Errorf("unknown key: %s", msg)
	}
	// A missing key file.
	e.keyAlias("nokey", ts, func(a *Alias) { a.KeyPath = filepath.Join(e.home, "missing") })
	if msg := e.fail("exec", map[string]any{"alias": "nokey", "command": "true"}); !strings.Contains(msg, "does not exist") {
		t.Errorf("missing key: %s", msg)
	}
}

// The passphrase is asked only because the key is encrypted; a wrong one
// is dropped and asked again.
func TestEncryptedKeyAsksPassphrase(t *testing.T) {
	t.Parallel()
	const pass = "correct horse battery"
	ts := startServer(t)
	e := newEnv(t)
	path, pub := clientKey(t, e.home, pass)
	ts.authorize(pub)
	e.trust(ts)
	must(t, e.srv.opts.Aliases.Save([]Alias{{Name: "enc", Host: "127.0.0.1", Port: ts.port, User: "tester", Auth: AuthKey, KeyPath: path, Sudo: SudoNone}}))

	e.asks.push(answer{value: "not it"})
	if msg := e.fail("exec", map[string]any{"alias": "enc", "command": "true"}); !strings.Contains(msg, "the passphrase for key "+path+" (alias enc) is wrong; the next call asks for it again") {
		t.Errorf("wrong passphrase: %s", msg)
	}
	if m := e.asks.last().Message; !strings.Contains(m, "passphrase of the key "+path) {
		t.Errorf("message: %s", m)
	}
	e.asks.push(answer{value: pass})
	var out execOut
	e.ok("exec", map[string]any{"alias": "enc", "command": "echo ok"}, &out)
	if out.Stdout != "ok\n" {
		t.Errorf("stdout %q", out.Stdout)
	}
}

func TestAgentLogin(t *testing.T) {
	ts := startServer(t)
	e := newEnv(t)
	e.trust(ts)
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := gossh.NewSignerFromKey(priv)
	ts.authorize(signer.PublicKey())
	keyring := agent.NewKeyring()
	must(t, keyring.Add(agent.AddedKey{PrivateKey: priv}))
	sock := filepath.Join(t.TempDir(), "agent.sock")
	l, err := net.Listen("unix", sock)
	must(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go agent.ServeAgent(keyring, c)
		}
	}()
	must(t, e.srv.opts.Aliases.Save([]Alias{{Name: "ag", Host: "127.0.0.1", Port: ts.port, User: "tester", Auth: AuthAgent, Sudo: SudoNone}}))

	t.Setenv("SSH_AUTH_SOCK", "")
	if msg := e.fail("exec", map[string]any{"alias": "ag", "command": "true"}); !strings.Contains(msg, "SSH_AUTH_SOCK is not set") {
		t.Errorf("no agent: %s", msg)
	}
	t.Setenv("SSH_AUTH_SOCK", sock)
	var res TestResult
	e.ok("test_alias", map[string]any{"name": "ag"}, &res)
	if !res.Connected || res.Auth != "agent (1 keys)" {
		t.Errorf("test_alias = %+v", res)
	}
}
