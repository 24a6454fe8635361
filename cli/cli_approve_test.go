//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/app/trust"
)

// uniqueInput is an ${input:ID} id no other test run uses: the desktop
// session's keyring keeps password inputs across the tests.
func uniqueInput() string { return fmt.Sprintf("pw-%d", time.Now().UnixNano()) }

// inboxWatch follows an instance's inbox.
type inboxWatch struct {
	t  *testing.T
	ch <-chan inbox.Event
}

func watchInbox(t *testing.T, data string) *inboxWatch {
	t.Helper()
	cl, err := control.Dial(data)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch, err := cl.WatchInbox(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return &inboxWatch{t: t, ch: ch}
}

// next waits for the next request of kind to be added.
func (w *inboxWatch) next(kind string) inbox.Request {
	w.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-w.ch:
			if !ok {
				w.t.Fatal("the inbox watch ended")
			}
			if ev.Kind == inbox.Added && ev.Request.Kind == kind {
				return ev.Request
			}
		case <-deadline:
			w.t.Fatalf("no %s request in the inbox", kind)
		}
	}
}

// callAsync calls a tool on g in a goroutine; the result comes on the
// channel (its text, and isError).
func callAsync(t *testing.T, g *gatewayConn, name string, args any) <-chan [2]string {
	done := make(chan [2]string, 1)
	go func() {
		res, errText := g.call("tools/call", map[string]any{"name": name, "arguments": args})
		if errText != "" {
			done <- [2]string{errText, "protocol error"}
			return
		}
		var r struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		}
		json.Unmarshal(res, &r)
		text := ""
		if len(r.Content) > 0 {
			text = r.Content[0].Text
		}
		done <- [2]string{text, map[bool]string{true: "isError", false: ""}[r.IsError]}
	}()
	return done
}

func awaitCall(t *testing.T, done <-chan [2]string) (string, string) {
	t.Helper()
	select {
	case r := <-done:
		return r[0], r[1]
	case <-time.After(30 * time.Second):
		t.Fatal("the call did not end")
	}
	return "", ""
}

// A destructive tool's call waits for the person in the inbox (kind
// approval, never forwarded to an assistant that declares elicitation),
// with the server, the tool, the assistant and the arguments, a secret
// typed earlier redacted. `inbox answer` allows it once, for the session,
// always (mcp.json gains the entry's allowTools), or declines it (isError
// "The person declined this call."). A read-only tool never asks.
func TestApprovalFromCLI(t *testing.T) {
	const secret = "hunter2-correct-horse"
	entry := fakeEntry(t, "echo", "MCPTRAY_FAKE_ANNOTATED", "1")
	pwID := uniqueInput()
	entry["env"].(map[string]string)["NOTES_PW"] = "${input:" + pwID + "}"
	in := startDaemon(t, nil)
	t.Cleanup(func() { in.Run("inputs", "forget", pwID) })
	b, _ := json.MarshalIndent(map[string]any{
		"mcpServers": map[string]any{"notes": entry},
		"inputs":     []any{map[string]any{"id": pwID, "type": "promptString", "description": "Notes password", "password": true}},
	}, "", "  ")
	os.WriteFile(in.Config, b, 0o600)
	w := watchInbox(t, in.Data)
	pw := w.next(inbox.KindInput)
	if code, _, errs := in.Run("inbox", "answer", pw.ID, "--field", pwID+"="+secret); code != 0 {
		t.Fatalf("answering the input: %s", errs)
	}
	in.WaitFor("notes ready", states("notes", "ready"))

	g := openGatewayWith(t, in.Data, map[string]any{"elicitation": map[string]any{}})
	g.tool("notes__read_note", map[string]any{}) // read-only: no question

	// write_note says nothing about what it changes: under the default
	// approve "destructive" it asks, and says why; `tools` shows it.
	if code, out, _ := in.Run("tools", "notes"); code != 0 || !regexpLine(out, `write_note\s+asks`) || !regexpLine(out, `delete_note\s+asks`) || !regexpLine(out, `read_note\s+on`) {
		t.Errorf("tools notes:\n%s", out)
	}
	unsaid := callAsync(t, g, "notes__write_note", map[string]any{})
	req := w.asks(unsaid, "write_note")
	if req.Tool != "write_note" || req.Approval == nil || req.Approval.Why != trust.UnsaidWhy || req.Approval.Destructive || req.Approval.ReadOnly {
		t.Errorf("approval of write_note %+v %+v", req, req.Approval)
	}
	if code, out, _ := in.Run("inbox", "--json"); code != 0 || !strings.Contains(out, "doesn't say whether it changes anything") {
		t.Errorf("inbox:\n%s", out)
	}
	if code, _, errs := in.Run("inbox", "answer", req.ID, "--yes"); code != 0 {
		t.Fatal(errs)
	}
	if text, isErr := awaitCall(t, unsaid); isErr != "" || text != "write_note: {}" {
		t.Errorf("write_note allowed once: %q %s", text, isErr)
	}
	args := map[string]any{"id": 7, "note": "x" + secret + "y", "long": strings.Repeat("z", 2000)}

	// Once.
	done := callAsync(t, g, "notes__delete_note", args)
	req = w.next(inbox.KindApproval)
	code, out, _ := in.Run("inbox", "--json")
	if code != 0 || strings.Contains(out, secret) || !strings.Contains(out, `"kind": "approval"`) {
		t.Errorf("inbox --json shows the secret, or no approval:\n%s", out)
	}
	if req.Server != "notes" || req.Tool != "delete_note" || req.Client != "test" || req.Approval == nil || !req.Approval.Destructive ||
		!strings.Contains(req.Approval.Arguments, `"note": "x[redacted]y"`) || !strings.Contains(req.Approval.Arguments, "… (1760 more characters)") {
		t.Errorf("approval request %+v %+v", req, req.Approval)
	}
	if code, out, errs := in.Run("inbox", "answer", req.ID, "--yes"); code != 0 || !strings.Contains(out, "delete_note of notes allowed") {
		t.Fatalf("answer --yes: %d %q %s", code, out, errs)
	}
	if text, isErr := awaitCall(t, done); isErr != "" || !strings.HasPrefix(text, `delete_note: {"id":7`) {
		t.Errorf("allowed once: %q %s", text, isErr)
	}
	if slices.Contains(g.notes, "elicitation/create") {
		t.Error("the approval went to the assistant")
	}

	// Denied.
	done = callAsync(t, g, "notes__delete_note", args)
	req = w.next(inbox.KindApproval)
	if code, _, errs := in.Run("inbox", "answer", req.ID, "--decline"); code != 0 {
		t.Fatal(errs)
	}
	if text, isErr := awaitCall(t, done); isErr != "isError" || text != "The person declined this call." {
		t.Errorf("declined: %q %s", text, isErr)
	}

	// For the session: the next call of this session does not ask.
	done = callAsync(t, g, "notes__delete_note", args)
	req = w.next(inbox.KindApproval)
	if code, _, errs := in.Run("inbox", "answer", req.ID, "--session"); code != 0 {
		t.Fatal(errs)
	}
	if _, isErr := awaitCall(t, done); isErr != "" {
		t.Error("allowed for the session: refused")
	}
	if _, isErr := awaitCall(t, callAsync(t, g, "notes__delete_note", args)); isErr != "" {
		t.Error("second call of the session refused")
	}

	// Always: another session asks once, then mcp.json allows it.
	g2 := openGateway(t, in.Data)
	done = callAsync(t, g2, "notes__delete_note", args)
	req = w.next(inbox.KindApproval)
	if code, _, errs := in.Run("inbox", "answer", req.ID, "--always"); code != 0 {
		t.Fatal(errs)
	}
	if _, isErr := awaitCall(t, done); isErr != "" {
		t.Error("allowed always: refused")
	}
	cfg, _ := os.ReadFile(in.Config)
	if !strings.Contains(string(cfg), `"x-mcptray": {"allowTools": ["delete_note"]}`) {
		t.Errorf("mcp.json lacks allowTools:\n%s", cfg)
	}
	in.WaitFor("allowTools applied", func(statusJSON) bool {
		d, ok := toolsByName(t, in, "notes")["delete_note"]
		return ok && !d.Approval
	})
	g3 := openGateway(t, in.Data)
	if _, isErr := awaitCall(t, callAsync(t, g3, "notes__delete_note", args)); isErr != "" {
		t.Error("a new session's call after Always refused")
	}
	if code, _, errs := in.Run("inbox", "answer", "00000000", "--session", "--decline"); code != 2 {
		t.Errorf("--session --decline: exit %d %s", code, errs)
	}
}
