package trust

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/inbox"
)

// waiter is a server waiting for approval, as WaitApproval sees it.
type waiter struct {
	approvals chan struct{}

	mu      sync.Mutex
	details []string
	pending *config.Launch
}

func newWaiter() *waiter { return &waiter{approvals: make(chan struct{}, 1)} }

func (w *waiter) NeedsApproval(detail string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.details = append(w.details, detail)
}
func (w *waiter) Log(string)                 {}
func (w *waiter) Approvals() <-chan struct{} { return w.approvals }
func (w *waiter) Pending(l *config.Launch) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = l
}

func parse(t *testing.T, k *kit, text string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(text), k.opts.Env())
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The first start approves what is there and marks the install; a new
// entry then waits until the person allows it in the inbox.
func TestLaunchesFirstStartThenAsk(t *testing.T) {
	k := newKit(t)
	ctx := context.Background()
	l := NewLaunches(k.opts)
	l.Load(ctx)
	cfg := parse(t, k, `{"mcpServers": {"a": {"command": "/bin/true"}}}`)
	l.Check(ctx, cfg)
	if l.NeedsApproval(cfg.Servers[0]) {
		t.Error("an entry present at the first start waits")
	}
	if _, err := k.Get(InstallMarkName(k.opts.DataDir)); err != nil {
		t.Errorf("the install is not marked: %v", err)
	}

	cfg = parse(t, k, `{"mcpServers": {"a": {"command": "/bin/true"}, "b": {"command": "/bin/echo", "args": ["hi"]}}}`)
	l.Check(ctx, cfg)
	b := cfg.Servers[1]
	if !l.NeedsApproval(b) {
		t.Fatal("a new entry runs without a yes")
	}
	w := newWaiter()
	done := make(chan bool, 1)
	go func() { done <- l.WaitApproval(ctx, w, b) }()
	req := k.answer(t, inbox.KindLaunch, inbox.Answer{Action: inbox.ActionAccept})
	if req.Launch == nil || !strings.Contains(req.Launch.CommandLine, "/bin/echo hi") || req.Message != `mcp.json has a new entry "b". Allow it to run this?` {
		t.Errorf("request %+v %+v", req, req.Launch)
	}
	select {
	case ok := <-done:
		if !ok {
			t.Fatal("WaitApproval returned false after a yes")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("WaitApproval did not return after a yes")
	}
	if l.NeedsApproval(b) || l.Approved("b").Command != req.Launch.CommandLine {
		t.Errorf("b not approved: %+v", l.Approved("b"))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.details) != 1 || w.details[0] != "a new entry waits for your approval before it runs: allow it in the inbox, or with: mcptray approve b" || w.pending != nil {
		t.Errorf("waiter saw %q, pending %v", w.details, w.pending)
	}
}

// A first start that finds the install's marker is a reset of mcptray's
// records: every entry waits, and one question approves them all.
func TestLaunchesResetAsksOnce(t *testing.T) {
	k := newKit(t)
	k.Set(InstallMarkName(k.opts.DataDir), "earlier")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l := NewLaunches(k.opts)
	l.Load(ctx)
	cfg := parse(t, k, `{"mcpServers": {"a": {"command": "/bin/true"}, "b": {"command": "/bin/echo"}}}`)
	l.Check(ctx, cfg)
	for _, s := range cfg.Servers {
		if !l.NeedsApproval(s) {
			t.Errorf("%s runs after a reset without a yes", s.Name)
		}
	}
	req := k.answer(t, inbox.KindLaunchReset, inbox.Answer{Action: inbox.ActionAccept})
	if req.Reset == nil || req.Reset.Why != WhyReset || len(req.Reset.Entries) != 2 || req.Server != "mcptray" {
		t.Errorf("request %+v %+v", req, req.Reset)
	}
	l.Close() // the question's goroutine has approved them all
	for _, s := range cfg.Servers {
		if l.NeedsApproval(s) {
			t.Errorf("%s still waits after the yes to all", s.Name)
		}
	}
}
