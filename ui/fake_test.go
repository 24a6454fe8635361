package ui

import (
	"context"
	"io"
	"log"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/events"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/internal/testkit"
)

// fakeCore is a Core whose methods call its function fields; a nil field
// gives a harmless default.
type fakeCore struct {
	status          func() control.Status
	subscribe       func() (<-chan control.Status, func())
	setEnabled      func(name string, enabled bool) error
	restart         func(name string) error
	askSignIn       func(name string) error
	serverEntry     func(name string) (config.Entry, error)
	addServer       func(e config.Entry, replace bool) (config.AddResult, error)
	removeServer    func(name string) ([]string, error)
	tools           func(name string) (control.ToolList, error)
	setTool         func(server, tool string, on bool) error
	followLog       func(ctx context.Context, name string, w io.Writer) error
	token           func() (string, error)
	toolsMode       func() string
	setToolsMode    func(mode string) error
	inbox           func() (<-chan inbox.Event, func())
	answer          func(id string, a inbox.Answer) error
	events          func(f events.Filter) ([]events.Event, error)
	unacked         func() (int, error)
	ackEvents       func(req events.AckRequest) (int, error)
	subEvents       func() (<-chan events.Change, func())
	*fakeGoogle                  // the Google tab's; nil: no client, no account
	secrets         *fakeSecrets // secrets_test.go; nil: none, and setting fails
	*fakeAssistants              // the Assistants tab's (assistants_test.go); nil: none known
}

func (f *fakeCore) Events(fl events.Filter) ([]events.Event, error) {
	if f.events == nil {
		return nil, nil
	}
	return f.events(fl)
}

func (f *fakeCore) UnackedEvents() (int, error) {
	if f.unacked == nil {
		return 0, nil
	}
	return f.unacked()
}

func (f *fakeCore) AckEvents(req events.AckRequest) (int, error) {
	if f.ackEvents == nil {
		return 0, nil
	}
	return f.ackEvents(req)
}

func (f *fakeCore) SubscribeEvents() (<-chan events.Change, func()) {
	if f.subEvents == nil {
		return make(chan events.Change), func() {}
	}
	return f.subEvents()
}

func (f *fakeCore) SubscribeInbox() (<-chan inbox.Event, func()) {
	if f.inbox == nil {
		return make(chan inbox.Event), func() {}
	}
	return f.inbox()
}

func (f *fakeCore) Answer(id string, a inbox.Answer) error {
	if f.answer == nil {
		return nil
	}
	return f.answer(id, a)
}

func (f *fakeCore) Status() control.Status {
	if f.status == nil {
		return twoServers()
	}
	return f.status()
}

func (f *fakeCore) Subscribe() (<-chan control.Status, func()) {
	if f.subscribe == nil {
		return make(chan control.Status), func() {}
	}
	return f.subscribe()
}

func (f *fakeCore) SetEnabled(name string, enabled bool) error {
	if f.setEnabled == nil {
		return nil
	}
	return f.setEnabled(name, enabled)
}

func (f *fakeCore) Tools(name string) (control.ToolList, error) {
	if f.tools == nil {
		return control.ToolList{Server: name, State: control.StateReady, Tools: []control.ToolInfo{}}, nil
	}
	return f.tools(name)
}

func (f *fakeCore) SetToolEnabled(server, tool string, on bool) error {
	if f.setTool == nil {
		return nil
	}
	return f.setTool(server, tool, on)
}

func (f *fakeCore) AskSignIn(name string) error {
	if f.askSignIn == nil {
		return nil
	}
	return f.askSignIn(name)
}

func (f *fakeCore) Restart(name string) error {
	if f.restart == nil {
		return nil
	}
	return f.restart(name)
}

func (f *fakeCore) ServerEntry(name string) (config.Entry, error) {
	if f.serverEntry == nil {
		return config.Entry{Name: name, Command: "npx"}, nil
	}
	return f.serverEntry(name)
}

func (f *fakeCore) AddServer(e config.Entry, replace bool) (config.AddResult, error) {
	if f.addServer == nil {
		return config.AddResult{}, nil
	}
	return f.addServer(e, replace)
}

func (f *fakeCore) RemoveServer(name string) ([]string, error) {
	if f.removeServer == nil {
		return nil, nil
	}
	return f.removeServer(name)
}

// FollowLog writes nothing by default and waits for ctx, like a log that
// does not grow.
func (f *fakeCore) FollowLog(ctx context.Context, name string, w io.Writer) error {
	if f.followLog == nil {
		<-ctx.Done()
		return nil
	}
	return f.followLog(ctx, name, w)
}

func (f *fakeCore) Token() (string, error) {
	if f.token == nil {
		return "fake-token", nil
	}
	return f.token()
}

func (f *fakeCore) ToolsMode() string {
	if f.toolsMode == nil {
		return "live"
	}
	return f.toolsMode()
}

func (f *fakeCore) SetToolsMode(mode string) error {
	if f.setToolsMode == nil {
		return nil
	}
	return f.setToolsMode(mode)
}

// testNow is the clock of widget tests: uptimes are measured against it.
var testNow = time.Date(2026, 7, 3, 12, 0, 0, 0, time.UTC)

// twoServers is a status with one server running (for 2h 5m) and one
// turned off.
func twoServers() control.Status {
	return control.Status{
		ConfigPath: "/home/me/.config/mcptray/mcp.json",
		Endpoint:   "http://127.0.0.1:8765/mcp",
		Servers: []control.ServerStatus{
			{Name: "notes", Type: "stdio", Enabled: true, State: control.StateReady, PID: 4242, Tools: 7,
				Restarts: 1, Since: testNow.Add(-2*time.Hour - 5*time.Minute)},
			{Name: "gmail", Type: "stdio", Enabled: false, State: control.StateDisabled},
		},
	}
}

// failOnThreadErrors fails t if Fyne logs a thread-check error (a widget
// touched off the main goroutine, or fyne.Do misused) while t runs.
func failOnThreadErrors(t *testing.T) {
	t.Helper()
	var buf testkit.Buffer
	prev := log.Writer()
	log.SetOutput(&buf)
	t.Cleanup(func() {
		log.SetOutput(prev)
		if out := buf.String(); strings.Contains(out, "Error in Fyne call thread") {
			t.Errorf("Fyne thread check failed:\n%s", out)
		} else if out != "" {
			t.Logf("log output:\n%s", out)
		}
	})
}
