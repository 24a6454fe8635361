package control

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/app/events"
	"github.com/mcptray/mcptray/internal/testkit"
)

// watchBackend is a backend whose watches the test feeds.
type watchBackend struct {
	backend
	statuses chan Status
	changes  chan events.Change

	mu      sync.Mutex
	windows map[string]int // registered, by kind
	raise   chan WindowSignal
}

func (b *watchBackend) Subscribe() (<-chan Status, func()) { return b.statuses, func() {} }
func (b *watchBackend) SubscribeEvents() (<-chan events.Change, func()) {
	return b.changes, func() {}
}
func (b *watchBackend) RegisterWindow(kind string) (<-chan WindowSignal, func()) {
	b.mu.Lock()
	b.windows[kind]++
	b.mu.Unlock()
	return b.raise, func() {
		b.mu.Lock()
		b.windows[kind]--
		b.mu.Unlock()
	}
}

func (b *watchBackend) registered(kind string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.windows[kind]
}

func newWatchBackend() *watchBackend {
	return &watchBackend{statuses: make(chan Status), changes: make(chan events.Change), windows: map[string]int{}, raise: make(chan WindowSignal), backend: backend{toolsMode: "stable"}}
}

func TestWatchStatusAndEvents(t *testing.T) {
	t.Parallel()
	b := newWatchBackend()
	cl, _ := serve(t, b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sts, err := cl.WatchStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b.statuses <- Status{ConfigPath: "/x/mcp.json", Unreachable: "never on the wire"}
	if st := <-sts; st.ConfigPath != "/x/mcp.json" || st.Unreachable != "" {
		t.Errorf("WatchStatus got %+v", st)
	}
	chs, err := cl.WatchEvents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b.changes <- events.Change{New: []events.Event{{ID: 7, Server: "a", Method: "event/x"}}}
	if ch := <-chs; len(ch.New) != 1 || ch.New[0].ID != 7 {
		t.Errorf("WatchEvents got %+v", ch)
	}
	if s, err := cl.Settings(ctx); err != nil || s.Tools != "stable" {
		t.Errorf("Settings = %+v, %v", s, err)
	}
	cancel()
	for range sts { // closed once ctx ends
	}
	for range chs {
	}
}

func TestHoldWindow(t *testing.T) {
	t.Parallel()
	b := newWatchBackend()
	cl, _ := serve(t, b)
	ctx, cancel := context.WithCancel(context.Background())
	raise, err := cl.HoldWindow(ctx, WindowPopup)
	if err != nil {
		t.Fatal(err)
	}
	if b.registered(WindowPopup) != 1 || b.registered(WindowMain) != 0 {
		t.Errorf("registered: popup %d, main %d", b.registered(WindowPopup), b.registered(WindowMain))
	}
	b.raise <- WindowSignal{Raise: true, Tab: "Inbox"}
	if got := <-raise; got != (WindowSignal{Raise: true, Tab: "Inbox"}) {
		t.Errorf("the window got %+v, want a raise on Inbox", got)
	}
	cancel()
	for range raise {
	}
	testkit.WaitFor(t, "the popup unregistered", func() bool { return b.registered(WindowPopup) == 0 })

	if _, err := cl.HoldWindow(context.Background(), "sidebar"); err == nil || err.Error() != `a window's kind is "main" or "popup", got "sidebar"` {
		t.Errorf("HoldWindow(sidebar) = %v", err)
	}
	r, err := cl.request(context.Background(), http.MethodPost, "/v1/windows/sidebar", nil)
	if err != nil || r.status != http.StatusBadRequest || !strings.Contains(r.err(nil).Error(), `got "sidebar"`) {
		t.Errorf("POST /v1/windows/sidebar = %d %s, %v", r.status, r.body, err)
	}
}

// TestHoldWindowPersonOnly: a server's process may not hold the popup's
// place (the tray would then open none).
func TestHoldWindowPersonOnly(t *testing.T) {
	t.Parallel()
	b := newWatchBackend()
	b.peer = Peer{OfServers: true, Server: "evil", Why: "a test says so"}
	cl, _ := serve(t, b)
	_, err := cl.HoldWindow(context.Background(), WindowPopup)
	if err == nil || !strings.Contains(err.Error(), "refused: only the person may register a window") {
		t.Errorf("HoldWindow from a server's process = %v", err)
	}
	if b.registered(WindowPopup) != 0 {
		t.Error("the backend registered it")
	}
	// The watches stay open to it, as the status is.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := cl.WatchStatus(ctx); err != nil {
		t.Errorf("WatchStatus from a server's process = %v", err)
	}
}

// TestInstanceGone: once the instance stopped, a request's error is
// ErrNotRunning too, its message the same as before.
func TestInstanceGone(t *testing.T) {
	t.Parallel()
	data := testkit.TempDir(t)
	ln, err := Listen(data)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(newWatchBackend(), nil)
	srv := &http.Server{Handler: h, ConnContext: h.ConnContext}
	go srv.Serve(ln)
	cl, err := Dial(data)
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	os.Remove(SocketPath(data))
	_, err = cl.Settings(context.Background())
	if !errors.Is(err, ErrNotRunning) || !strings.HasPrefix(err.Error(), "talking to mcptray: ") {
		t.Errorf("a request after the instance stopped = %v, want ErrNotRunning", err)
	}
	if _, err := cl.WatchStatus(context.Background()); !errors.Is(err, ErrNotRunning) {
		t.Errorf("a watch after the instance stopped = %v, want ErrNotRunning", err)
	}
}
