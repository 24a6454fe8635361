package control

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/internal/testkit"
)

// backend is a Backend whose methods the test sets; one it leaves nil
// panics (embedded nil interface), so a test says what it uses.
type backend struct {
	Backend
	status      func() Status
	restart     func(string) error
	approve     func(string) error
	removeSec   func(string) error
	forgetInput func(string) error
	replace     func(old, new []byte) error
	setEnabled  func(string, bool) error
	serveMCP    func(context.Context, io.ReadWriteCloser) error
	toolsMode   string

	mu      sync.Mutex
	peer    Peer
	refused []string
}

func (b *backend) Status() Status                      { return b.status() }
func (b *backend) Restart(name string) error           { return b.restart(name) }
func (b *backend) ApproveServer(name string) error     { return b.approve(name) }
func (b *backend) RemoveSecret(name string) error      { return b.removeSec(name) }
func (b *backend) ForgetInput(id string) error         { return b.forgetInput(id) }
func (b *backend) ReplaceConfig(old, new []byte) error { return b.replace(old, new) }
func (b *backend) SetEnabled(name string, on bool) error {
	return b.setEnabled(name, on)
}
func (b *backend) ProcStart(int) uint64 { return 1 }
func (b *backend) ToolsMode() string    { return b.toolsMode }
func (b *backend) ServeMCP(ctx context.Context, rw io.ReadWriteCloser, _, _ string) error {
	return b.serveMCP(ctx, rw)
}
func (b *backend) InspectPeer(pid int, _ uint64) Peer {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.peer
	p.PID = pid
	return p
}
func (b *backend) RecordRefusal(p Peer, what, request string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refused = append(b.refused, what+" "+request)
}

// serve runs a Handler over b on a real socket in a temp data dir and
// returns a Client of it.
func serve(t *testing.T, b Backend) (*Client, string) {
	t.Helper()
	data := testkit.TempDir(t)
	ln, err := Listen(data)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(b, nil)
	srv := &http.Server{Handler: h, ConnContext: h.ConnContext}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	cl, err := Dial(data)
	if err != nil {
		t.Fatal(err)
	}
	return cl, data
}

func TestDialWithNoInstance(t *testing.T) {
	t.Parallel()
	_, err := Dial(testkit.TempDir(t))
	if !errors.Is(err, ErrNotRunning) {
		t.Errorf("Dial = %v, want ErrNotRunning", err)
	}
}

// TestClientErrors: the sentinels a handler maps to a status come back
// from the client, and its message with them.
func TestClientErrors(t *testing.T) {
	t.Parallel()
	b := &backend{
		status: func() Status {
			return Status{ConfigPath: "/x/mcp.json", Servers: []ServerStatus{{Name: "a", State: StateReady}}}
		},
		restart:     func(name string) error { return errorsJoin(name, config.ErrNoServer) },
		approve:     func(name string) error { return errorsJoin(name, config.ErrNotWaiting) },
		removeSec:   func(name string) error { return errorsJoin(name, config.ErrNoSecret) },
		forgetInput: func(id string) error { return errorsJoin(id, inbox.ErrNoInputValue) },
		replace:     func(old, new []byte) error { return config.ErrChanged },
	}
	cl, _ := serve(t, b)
	ctx := context.Background()
	st, err := cl.Status(ctx)
	if err != nil || st.ConfigPath != "/x/mcp.json" || len(st.Servers) != 1 || st.Servers[0].State != StateReady {
		t.Errorf("Status = %+v, %v", st, err)
	}
	if err := cl.Restart(ctx, "nope"); !errors.Is(err, config.ErrNoServer) || err.Error() != "nope: no such server" {
		t.Errorf("Restart = %v, want config.ErrNoServer", err)
	}
	if err := cl.ApproveServer(ctx, "a"); err == nil || err.Error() != "a: it does not wait for approval" {
		t.Errorf("ApproveServer = %v", err)
	}
	if err := cl.RemoveSecret(ctx, "TOKEN"); !errors.Is(err, config.ErrNoSecret) {
		t.Errorf("RemoveSecret = %v, want config.ErrNoSecret", err)
	}
	if err := cl.ForgetInput(ctx, "pat"); !errors.Is(err, inbox.ErrNoInputValue) {
		t.Errorf("ForgetInput = %v, want inbox.ErrNoInputValue", err)
	}
	if err := cl.ReplaceConfig(ctx, []byte("{}"), []byte(`{"servers": {}}`)); !errors.Is(err, config.ErrChanged) {
		t.Errorf("ReplaceConfig = %v, want config.ErrChanged", err)
	}
}

// TestPersonOnly: a request only the person may make is refused (403) to
// a server's process, and the backend records it; reading stays open.
func TestPersonOnly(t *testing.T) {
	t.Parallel()
	enabled := 0
	b := &backend{
		status:     func() Status { return Status{} },
		setEnabled: func(string, bool) error { enabled++; return nil },
		peer:       Peer{OfServers: true, Server: "evil", Command: "sh", Why: "a test says so"},
	}
	cl, _ := serve(t, b)
	ctx := context.Background()
	if _, err := cl.Status(ctx); err != nil {
		t.Errorf("Status from a server's process = %v, want it open", err)
	}
	err := cl.SetEnabled(ctx, "a", true)
	if err == nil || !strings.HasPrefix(err.Error(), `refused: only the person may turn a server on, and this request comes from server "evil" (pid `) {
		t.Errorf("SetEnabled from a server's process = %v", err)
	}
	if enabled != 0 {
		t.Error("the backend was asked to enable")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.refused) != 1 || b.refused[0] != "turn a server on POST /v1/servers/a/enable" {
		t.Errorf("refusals recorded = %q", b.refused)
	}
}

func errorsJoin(name string, err error) error { return &wrapped{name: name, err: err} }

type wrapped struct {
	name string
	err  error
}

func (w *wrapped) Error() string { return w.name + ": " + w.err.Error() }
func (w *wrapped) Unwrap() error { return w.err }

func TestParams(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    string
		want bool
		ok   bool
	}{{"", false, true}, {"0", false, true}, {"false", false, true}, {"1", true, true}, {"true", true, true}, {"yes", false, false}} {
		got, err := boolParam(tc.v, "all")
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("boolParam(%q) = %v, %v", tc.v, got, err)
		}
	}
	if n, err := intParam("", "limit", "a number"); n != 0 || err != nil {
		t.Errorf(`intParam("") = %d, %v`, n, err)
	}
	if n, err := intParam("42", "limit", "a number"); n != 42 || err != nil {
		t.Errorf(`intParam("42") = %d, %v`, n, err)
	}
	if _, err := intParam("-1", "limit", "a number of events"); err == nil || err.Error() != `limit must be a number of events (a whole number, 0 or more), got "-1"` {
		t.Errorf(`intParam("-1") = %v`, err)
	}
}
