package app

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/events"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// leakedSecret is the password the leaker fake is given: a '/', non-ASCII,
// an astral character and HTML characters, so that every escape a JSON
// encoder may write is tried.
const leakedSecret = "Tr0ub/4dör&😀-horse<x>"

// holdsSecret reports whether s holds the secret as typed or in any of
// the leaker's JSON spellings.
func holdsSecret(s string) bool {
	for _, f := range append(mcptest.SecretForms(leakedSecret), leakedSecret) {
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}

// masked is s with the secret (in every spelling) shown as ‹secret›, so
// that a failure does not print it.
func masked(s string) string {
	for _, f := range append(mcptest.SecretForms(leakedSecret), leakedSecret) {
		s = strings.ReplaceAll(s, f, "‹secret›")
	}
	if len(s) > 2000 {
		s = s[:2000] + "…"
	}
	return s
}

// Issue 17 item 3: a server that echoes a secret typed in the inbox in its
// events' params (and method), in every JSON spelling, gets it neither
// stored, nor listed by mcptray__events, nor shown in a notification.
func TestEventsRedactSecrets(t *testing.T) {
	rec := newRecordingNotifier()
	h := startCore(t, servers("leak", fake(t, "leaker")), func(o *Options) { o.Notifier = rec })
	h.wait("ready", stateIs("leak", control.StateReady))
	requests, cancel := h.core.SubscribeInbox()
	defer cancel()
	c := openRPC(t, h, "", "")
	reply := asyncCall(c, "leak__login", map[string]any{})
	req := nextEvent(t, requests, inbox.Added).Request
	if err := h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept, Content: map[string]any{"password": leakedSecret}, By: "test"}); err != nil {
		t.Fatal(err)
	}
	if res := waitReply(t, reply); !strings.Contains(res, "login accept") {
		t.Fatalf("login: %s", res)
	}

	res := callTool(c, "leak__echo", map[string]any{})
	forms := mcptest.SecretForms(leakedSecret)
	evs := h.waitEvents(len(forms)+1, events.Filter{Server: "leak"})
	for _, e := range evs {
		if holdsSecret(e.Method) || holdsSecret(decoded(t, e.Params)) || !strings.Contains(e.Method+decoded(t, e.Params), "[redacted]") {
			t.Errorf("event %s %s", masked(e.Method), masked(string(e.Params)))
		}
	}
	var note events.Notification
	select {
	case <-rec.added:
		note = rec.all()[0]
	case <-time.After(30 * time.Second):
		t.Fatal("no notification")
	}
	if holdsSecret(note.Title+note.Body) || note.Title != "leak: Login [redacted]" || note.Body != "pw [redacted]" {
		t.Errorf("notification: %s", masked(fmt.Sprintf("%+v", note)))
	}
	listed := callTool(c, "mcptray__events", map[string]any{"server": "leak"})
	if holdsSecret(decoded(t, listed)) || !strings.Contains(string(listed), "[redacted]") {
		t.Errorf("mcptray__events: %s", masked(decoded(t, listed)))
	}
	if holdsSecret(decoded(t, res)) {
		t.Errorf("echo's result: %s", masked(decoded(t, res)))
	}
	// What a person sees keeps working: the events are there, the server too.
	if s := h.server("leak"); s.State != control.StateReady {
		t.Errorf("leak is %s", s.State)
	}
	h.stop()
	for _, f := range append(forms, leakedSecret) {
		noSecretUnder(t, h.data, f)
	}
}

// decoded is a JSON text with every string decoded, so that a secret
// shows whatever escapes spelled it.
func decoded(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
	var sb strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			sb.WriteString(v + "\n")
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for k, x := range v {
				sb.WriteString(k + "\n")
				walk(x)
			}
		}
	}
	walk(v)
	return sb.String()
}
