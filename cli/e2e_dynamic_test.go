//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// TestCallToolAsksFirst: in dynamic mode (`mcptray connect --tools
// dynamic`), mcptray__call_tool passes the checks a direct call does. A
// destructive tool found with search_tools (marked as needing approval)
// waits in the inbox; declined, it deletes nothing; allowed, it runs. A
// duplicate key in call_tool's arguments is refused before routing; a
// tool switched off is neither found nor called; a server turned off is
// found by its last known tools, with how to turn it on. `mcptray
// history` records the real server and tool, never call_tool.
func TestCallToolAsksFirst(t *testing.T) {
	notes := t.TempDir()
	for _, n := range []string{"7", "8"} {
		if err := os.WriteFile(filepath.Join(notes, n), []byte("note "+n), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(n string) bool { _, err := os.Stat(filepath.Join(notes, n)); return err == nil }
	in := startDaemon(t, map[string]any{"notes": fakeEntry(t, "echo", mcptest.AnnotatedEnv, "1", mcptest.NotesDirEnv, notes)})
	in.WaitFor("notes ready", states("notes", "ready"))
	w := watchInbox(t, in.Data)
	c := startLineClient(t, in, "--tools", "dynamic")

	if line := c.call("tools/call", `{"name":"mcptray__search_tools","arguments":{"query":"delete a note","limit":3}}`); !strings.Contains(line, `\"tool\":\"delete_note\"`) || !strings.Contains(line, `\"approval\":`) {
		t.Errorf("search_tools: %s", line)
	}
	deleteNote := func(id, n string) {
		c.send(`{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":"mcptray__call_tool","arguments":{"server":"notes","tool":"delete_note","arguments":{"id":"` + n + `"}}}}`)
	}

	// Declined: the note stays.
	deleteNote("no", "7")
	req := w.next(inbox.KindApproval)
	if req.Server != "notes" || req.Tool != "delete_note" || req.Approval == nil || !req.Approval.Destructive || !strings.Contains(req.Approval.Arguments, `"7"`) {
		t.Errorf("approval request %+v %+v", req, req.Approval)
	}
	if !exists("7") {
		t.Fatal("note 7 deleted before the person answered")
	}
	if code, _, errs := in.Run("inbox", "answer", req.ID, "--decline"); code != 0 {
		t.Fatal(errs)
	}
	if line := c.next(`"id":"no"`); !strings.Contains(line, "The person declined this call.") || !strings.Contains(line, `"isError":true`) {
		t.Errorf("declined: %s", line)
	}
	if !exists("7") {
		t.Error("declined, yet note 7 is gone")
	}

	// Allowed: it runs.
	deleteNote("yes", "7")
	req = w.next(inbox.KindApproval)
	if code, _, errs := in.Run("inbox", "answer", req.ID, "--yes"); code != 0 {
		t.Fatal(errs)
	}
	if line := c.next(`"id":"yes"`); !strings.Contains(line, `delete_note: {\"id\":\"7\"}`) {
		t.Errorf("allowed: %s", line)
	}
	if exists("7") {
		t.Error("allowed, yet note 7 is still there")
	}

	// A key twice: what the gateway would approve and what the server
	// would read could differ, so it is refused before routing.
	c.send(`{"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"mcptray__call_tool","arguments":{"server":"notes","tool":"read_note","tool":"delete_note","arguments":{"id":"8"}}}}`)
	if line := c.next(`"id":"dup"`); !strings.Contains(line, `"code":-32600`) {
		t.Errorf("duplicate key: %s", line)
	}

	// Switched off: not found, not called.
	if code, _, errs := in.Run("tools", "notes", "off", "delete_note"); code != 0 {
		t.Fatal(errs)
	}
	waitFor(t, "delete_note gone from the search", func() bool {
		line := c.call("tools/call", `{"name":"mcptray__search_tools","arguments":{"query":"delete a note"}}`)
		return strings.Contains(line, `read_note`) && !strings.Contains(line, `\"tool\":\"delete_note\"`)
	})
	deleteNote("off", "8")
	if line := c.next(`"id":"off"`); !strings.Contains(line, "turned off in mcptray") {
		t.Errorf("call of an off tool: %s", line)
	}
	if !exists("8") {
		t.Error("note 8 is gone")
	}

	// Turned off, the server is still searched, by its last known tools
	// (the store's cache), saying how to turn it on.
	if code, _, errs := in.Run("toggle", "notes", "off"); code != 0 {
		t.Fatal(errs)
	}
	waitFor(t, "read_note found while notes is off", func() bool {
		line := c.call("tools/call", `{"name":"mcptray__search_tools","arguments":{"query":"read a note","limit":1}}`)
		return strings.Contains(line, `\"tool\":\"read_note\"`) && strings.Contains(line, `\"state\":\"disabled\"`) &&
			strings.Contains(line, "mcptray toggle notes on")
	})

	var h struct {
		Calls []struct{ Server, Tool, Outcome string } `json:"calls"`
	}
	waitFor(t, "delete_note in the history", func() bool {
		_, out, _ := in.Run("history", "--json")
		return json.Unmarshal([]byte(out), &h) == nil && len(h.Calls) >= 1
	})
	if len(h.Calls) != 1 || h.Calls[0].Server != "notes" || h.Calls[0].Tool != "delete_note" || h.Calls[0].Outcome != "ok" {
		t.Errorf("history %+v; want the one delete_note that ran, as notes/delete_note", h.Calls)
	}
}
