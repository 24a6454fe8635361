package remote_test

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/assistants"
	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/events"
	"github.com/mcptray/mcptray/app/googleaccounts"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/app/remote"
	"github.com/mcptray/mcptray/internal/testkit"
)

// uiCore mirrors ui.Core (ui/core.go, with GoogleCore in ui/google.go and
// AssistantsCore in ui/assistants.go), which app/remote may not import:
// keep the two in step. ui holds the real check,
// var _ Core = (*remote.Core)(nil).
type uiCore interface {
	Status() control.Status
	Subscribe() (updates <-chan control.Status, cancel func())
	SetEnabled(name string, enabled bool) error
	Restart(name string) error
	ServerEntry(name string) (config.Entry, error)
	AddServer(e config.Entry, replace bool) (config.AddResult, error)
	RemoveServer(name string) ([]string, error)
	Tools(name string) (control.ToolList, error)
	SetToolEnabled(server, tool string, on bool) error
	FollowLog(ctx context.Context, name string, w io.Writer) error
	Token() (string, error)
	ToolsMode() string
	SetToolsMode(mode string) error
	SubscribeInbox() (events <-chan inbox.Event, cancel func())
	Answer(id string, a inbox.Answer) error
	Events(f events.Filter) ([]events.Event, error)
	UnackedEvents() (int, error)
	AckEvents(req events.AckRequest) (int, error)
	SubscribeEvents() (changes <-chan events.Change, cancel func())
	SecretNames() ([]string, error)
	SetSecret(name, value string) error
	RemoveSecret(name string) error

	// GoogleCore
	GoogleClient() (string, error)
	GoogleAccounts() ([]googleaccounts.Account, error)
	ImportGoogleClient(path string) (string, error)
	AddGoogleAccount(ctx context.Context, services []string, email string, opened func(url string, browserErr error)) (googleaccounts.Added, error)
	RemoveGoogleAccount(ctx context.Context, email string) (googleaccounts.Removed, error)

	// AssistantsCore
	Assistants() ([]assistants.Summary, error)
	PlanAssistant(client string, remove bool) (*assistants.Change, error)
	PlanImport(client string) (*assistants.ImportPlan, error)
	ImportDiff(p *assistants.ImportPlan, ch assistants.ImportChoice) (string, error)
	ApplyImport(p *assistants.ImportPlan, ch assistants.ImportChoice) error
}

var _ uiCore = (*remote.Core)(nil)

// dial is remote.Dial on d, closed at the test's end.
func dial(t *testing.T, d dirs) *remote.Core {
	t.Helper()
	c, err := remote.Dial(context.Background(), d.cfg, d.data, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestDialWithoutInstance(t *testing.T) {
	d := newDirs(t, servers())
	_, err := remote.Dial(context.Background(), d.cfg, d.data, nil)
	if !errors.Is(err, control.ErrNotRunning) {
		t.Fatalf("Dial with no instance = %v, want control.ErrNotRunning", err)
	}
}

func TestStatusWatchSeesToggle(t *testing.T) {
	d := newDirs(t, servers("a", fake(t, "echo"), "b", fake(t, "echo")))
	in := start(t, d)
	c := dial(t, d)
	updates, cancel := c.Subscribe()
	defer cancel()
	waitStatus(t, updates, "a and b ready", func(st control.Status) bool {
		return state(st, "a") == control.StateReady && state(st, "b") == control.StateReady
	})
	if err := c.SetEnabled("a", false); err != nil {
		t.Fatal(err)
	}
	st := waitStatus(t, updates, "a off", func(st control.Status) bool { return state(st, "a") == control.StateDisabled })
	if state(st, "b") != control.StateReady || st.Unreachable != "" {
		t.Errorf("after turning a off: b %q, unreachable %q", state(st, "b"), st.Unreachable)
	}
	// Status is what the watch said last: the core's, once it settles.
	testkit.WaitFor(t, "Status to be the core's", func() bool { return reflect.DeepEqual(c.Status(), in.core.Status()) })
	if err, werr := c.SetEnabled("nope", true), in.core.SetEnabled("nope", true); err == nil || werr == nil || err.Error() != werr.Error() {
		t.Errorf("SetEnabled(nope) = %v; the core's %v", err, werr)
	}
	if err := c.Restart("nope"); !errors.Is(err, config.ErrNoServer) {
		t.Errorf("Restart(nope) = %v, want config.ErrNoServer", err)
	}
	pid := 0
	for _, s := range st.Servers {
		if s.Name == "b" {
			pid = s.PID
		}
	}
	if err := c.Restart("b"); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, updates, "b restarted", func(st control.Status) bool {
		for _, s := range st.Servers {
			if s.Name == "b" && s.State == control.StateReady && s.PID != pid {
				return true
			}
		}
		return false
	})
	// cancel closes the channel (after what it holds, at most one).
	cancel()
	for range updates {
	}
}

func TestToolsAndSettings(t *testing.T) {
	d := newDirs(t, servers("a", fake(t, "echo")))
	in := start(t, d)
	c := dial(t, d)
	updates, cancel := c.Subscribe()
	defer cancel()
	waitStatus(t, updates, "a ready", func(st control.Status) bool { return state(st, "a") == control.StateReady })

	got, err := c.Tools("a")
	want, werr := in.core.Tools("a")
	if err != nil || werr != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Tools(a) = %+v, %v; the core's %+v, %v", got, err, want, werr)
	}
	if _, err := c.Tools("nope"); !errors.Is(err, config.ErrNoServer) {
		t.Errorf("Tools(nope) = %v, want config.ErrNoServer", err)
	}
	if err := c.SetToolEnabled("a", "echo", false); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "echo off", func() bool {
		l, err := c.Tools("a")
		for _, tool := range l.Tools {
			if tool.Name == "echo" {
				return err == nil && !tool.Enabled
			}
		}
		return false
	})

	if c.ToolsMode() != in.core.ToolsMode() || c.ToolsMode() != "live" {
		t.Errorf("ToolsMode = %q, the core's %q", c.ToolsMode(), in.core.ToolsMode())
	}
	if err := c.SetToolsMode("sometimes"); err == nil || !strings.Contains(err.Error(), `"sometimes"`) {
		t.Errorf("SetToolsMode(sometimes) = %v, want an error naming it", err)
	}
	if err := c.SetToolsMode("stable"); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the stable mode applied", func() bool { return in.core.ToolsMode() == "stable" })
	if c.ToolsMode() != "stable" {
		t.Errorf("ToolsMode = %q after SetToolsMode(stable)", c.ToolsMode())
	}
}

func TestServerEntries(t *testing.T) {
	d := newDirs(t, servers("a", fake(t, "echo")))
	in := start(t, d)
	c := dial(t, d)
	updates, cancel := c.Subscribe()
	defer cancel()

	got, err := c.ServerEntry("a")
	want, werr := in.core.ServerEntry("a")
	if err != nil || werr != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("ServerEntry(a) = %+v, %v; the core's %+v, %v", got, err, want, werr)
	}
	e := got
	e.Name = "b"
	res, err := c.AddServer(e, false)
	if err != nil {
		t.Fatalf("AddServer(b) = %+v, %v", res, err)
	}
	waitStatus(t, updates, "b ready", func(st control.Status) bool { return state(st, "b") == control.StateReady })
	if _, err := c.AddServer(e, false); !errors.Is(err, config.ErrServerExists) {
		t.Errorf("adding b again = %v, want config.ErrServerExists", err)
	}
	bad := e
	bad.Name = "bad name!"
	var ee *config.EntryError
	if _, err := c.AddServer(bad, false); !errors.As(err, &ee) {
		t.Errorf("AddServer(%q) = %v, want an *config.EntryError", bad.Name, err)
	}
	if _, err := c.RemoveServer("b"); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, updates, "b gone", func(st control.Status) bool { return state(st, "b") == "" && state(st, "a") != "" })
}

func TestFollowLog(t *testing.T) {
	d := newDirs(t, servers("a", fake(t, "echo")))
	start(t, d)
	c := dial(t, d)
	ctx, cancel := context.WithCancel(context.Background())
	var out testkit.Buffer
	done := make(chan error, 1)
	go func() { done <- c.FollowLog(ctx, "a", &out) }()
	testkit.WaitFor(t, "a's log to say it is ready", func() bool { return strings.Contains(out.String(), "[lifecycle]") })
	cancel()
	testkit.Within(t, testkit.Deadline, "FollowLog after cancel", func() { <-done })
}

func TestAssistantsAreTheCores(t *testing.T) {
	t.Setenv("HOME", testkit.TempDir(t))
	t.Setenv("XDG_CONFIG_HOME", "")
	d := newDirs(t, servers())
	in := start(t, d)
	c := dial(t, d)
	got, err := c.Assistants()
	want, werr := in.core.Assistants()
	if err != nil || werr != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Assistants = %+v, %v; the core's %+v, %v", got, err, want, werr)
	}
	if _, err := c.PlanImport("nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("PlanImport(nope) = %v, want an error naming it", err)
	}
}
