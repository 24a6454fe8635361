//go:build unix

package ssh

import (
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
)

func TestPoolReusesAndExpires(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	e := newEnv(t, withOptions(func(o *Options) { o.IdleTimeout = 300 * time.Millisecond }))
	e.keyAlias("box", ts)
	var out execOut
	for range 3 {
		e.ok("exec", map[string]any{"alias": "box", "command": "true"}, &out)
	}
	if acc, _ := ts.stats(); acc != 1 {
		t.Errorf("3 calls made %d connections, want 1", acc)
	}
	testkit.WaitForWithin(t, 10*time.Second, "the idle connection to close", func() bool {
		_, closed := ts.stats()
		return closed == 1 && e.srv.pool.live() == 0
	})
	e.ok("exec", map[string]any{"alias": "box", "command": "true"}, &out)
	if acc, _ := ts.stats(); acc != 2 {
		t.Errorf("after expiry: %d connections, want 2", acc)
	}
}

// A connection that died while pooled is redialled once, transparently.
func TestPoolRedialsDeadConnection(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	e := newEnv(t)
	e.keyAlias("box", ts)
	var out execOut
	e.ok("exec", map[string]any{"alias": "box", "command": "true"}, &out)
	ts.dropAll()
	e.ok("exec", map[string]any{"alias": "box", "command": "echo back"}, &out)
	if out.Stdout != "back\n" {
		t.Errorf("after a drop: %+v", out)
	}
	if acc, _ := ts.stats(); acc != 2 {
		t.Errorf("%d connections, want 2", acc)
	}
}

// A keepalive without an answer ends the connection.
func TestPoolKeepaliveNoticesDeadPeer(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	e := newEnv(t, withOptions(func(o *Options) { o.KeepAlive = 200 * time.Millisecond }))
	e.keyAlias("box", ts)
	var out execOut
	e.ok("exec", map[string]any{"alias": "box", "command": "true"}, &out)
	ts.dropAll()
	testkit.WaitForWithin(t, 10*time.Second, "the pool to notice", func() bool { return e.srv.pool.live() == 0 })
}

// Changing an alias closes its pooled connection; the next call dials
// with the new settings.
func TestPoolFollowsAliasChanges(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	other := startServer(t)
	e := newEnv(t)
	a := e.keyAlias("box", ts)
	var out execOut
	e.ok("exec", map[string]any{"alias": "box", "command": "true"}, &out)
	// Point it at the other server (behind the store's back, as the CLI does).
	path, pub := clientKey(t, e.home, "")
	other.authorize(pub)
	e.trust(other)
	a.Port, a.KeyPath = other.port, path
	must(t, e.store.Save([]Alias{a}))
	e.ok("exec", map[string]any{"alias": "box", "command": "true"}, &out)
	if acc, _ := other.stats(); acc != 1 {
		t.Errorf("the changed alias did not reach the other server")
	}
	testkit.WaitForWithin(t, 10*time.Second, "the old connection to close", func() bool {
		_, closed := ts.stats()
		return closed == 1
	})
}

func TestJumpHost(t *testing.T) {
	t.Parallel()
	bastion := startServer(t)
	inner := startServer(t)
	e := newEnv(t)
	e.keyAlias("bastion", bastion)
	e.keyAlias("inner", inner, func(a *Alias) { a.Jump = "bastion" })
	var out execOut
	e.ok("exec", map[string]any{"alias": "inner", "command": "echo inside"}, &out)
	if out.Stdout != "inside\n" {
		t.Errorf("through the jump host: %+v", out)
	}
	if acc, _ := inner.stats(); acc != 1 {
		t.Errorf("inner saw %d connections", acc)
	}
	// A loop and a missing jump host are refused before dialling.
	if _, _, err := e.srv.AddAlias(Alias{Name: "bastion", Host: "127.0.0.1", Port: bastion.port, User: "tester", Jump: "inner"}, true); err == nil || !strings.Contains(err.Error(), "make a loop") {
		t.Errorf("loop: %v", err)
	}
	if msg := e.fail("add_alias", map[string]any{"name": "x", "host": "h", "user": "u", "jump": "ghost"}); !strings.Contains(msg, `jumps through "ghost", which is not an alias`) {
		t.Errorf("missing jump: %s", msg)
	}
	if msg := e.fail("remove_alias", map[string]any{"name": "bastion"}); !strings.Contains(msg, "alias bastion is the jump host of inner") {
		t.Errorf("remove a jump host: %s", msg)
	}
}
