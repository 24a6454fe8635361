package ui

import (
	"bytes"
	"log"
	"strings"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/app"
)

// fakeCore is a Core whose methods call its function fields.
type fakeCore struct {
	status     func() app.Status
	subscribe  func() (<-chan app.Status, func())
	setEnabled func(name string, enabled bool) error
}

func (f *fakeCore) Status() app.Status                     { return f.status() }
func (f *fakeCore) Subscribe() (<-chan app.Status, func()) { return f.subscribe() }
func (f *fakeCore) SetEnabled(name string, enabled bool) error {
	return f.setEnabled(name, enabled)
}

// twoServers is a status with one server running and one turned off.
func twoServers() app.Status {
	return app.Status{
		ConfigPath: "/home/me/.config/mcptray/mcp.json",
		Servers: []app.ServerStatus{
			{Name: "notes", Type: "stdio", Enabled: true, State: app.StateReady, PID: 4242, Tools: 7},
			{Name: "gmail", Type: "stdio", Enabled: false, State: app.StateDisabled},
		},
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// failOnThreadErrors fails t if Fyne logs a thread-check error (a widget
// touched off the main goroutine, or fyne.Do misused) while t runs.
func failOnThreadErrors(t *testing.T) {
	t.Helper()
	var buf syncBuffer
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
