//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
)

// regexpLine reports whether a line of out matches expr.
func regexpLine(out, expr string) bool {
	return regexp.MustCompile("(?m)^" + expr).MatchString(out)
}

// listedTools is the names tools/list gives the session.
func (g *gatewayConn) listedTools() []string {
	g.t.Helper()
	res, errText := g.call("tools/list", map[string]any{})
	if errText != "" {
		g.t.Fatalf("tools/list: %s", errText)
	}
	var l struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	json.Unmarshal(res, &l)
	var names []string
	for _, t := range l.Tools {
		names = append(names, t.Name)
	}
	return names
}

// waitNote pings until a notification with method has been read.
func (g *gatewayConn) waitNote(method string, after int) {
	g.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !slices.Contains(g.notes[after:], method) {
		if time.Now().After(deadline) {
			g.t.Fatalf("no %s; notifications: %v", method, g.notes)
		}
		g.call("ping", map[string]any{})
	}
}

// callResult is a tools/call result: its text and isError.
func callResult(t *testing.T, raw json.RawMessage) (string, bool) {
	t.Helper()
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("not a tool result: %s", raw)
	}
	return r.Content[0].Text, r.IsError
}

// A tool turned off from the CLI leaves tools/list (a list_changed goes
// out), its call is refused with isError text, the server keeps running,
// and mcp.json gains only the entry's x-mcptray.disabledTools; `tools
// NAME` shows the tools with their hints and switches.
func TestToolTurnedOffFromCLI(t *testing.T) {
	in := startDaemon(t, map[string]any{"notes": fakeEntry(t, "echo", "MCPTRAY_FAKE_ANNOTATED", "1")})
	st := in.WaitFor("notes ready", states("notes", "ready"))
	pid := st.Servers[0].PID
	g := openGateway(t, in.Data)
	w := watchInbox(t, in.Data)
	g.tool("notes__read_note", map[string]any{})
	if names := g.listedTools(); !slices.Contains(names, "notes__write_note") {
		t.Fatalf("tools/list: %v", names)
	}

	code, out, errs := in.Run("tools", "notes", "--json")
	if code != 0 {
		t.Fatalf("tools --json: %d %s", code, errs)
	}
	var l control.ToolList
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	byName := map[string]control.ToolInfo{}
	for _, ti := range l.Tools {
		byName[ti.Name] = ti
	}
	if r := byName["read_note"]; !r.ReadOnly || !r.Idempotent || r.OpenWorld || r.Destructive || !r.Enabled || r.Title != "Read a note" || r.Description != "Reads a note." {
		t.Errorf("read_note: %+v", r)
	}
	if d := byName["delete_note"]; !d.Destructive || !d.OpenWorld || d.ReadOnly {
		t.Errorf("delete_note: %+v", d)
	}
	before, _ := os.ReadFile(in.Config)

	n := len(g.notes)
	if code, out, errs := in.Run("tools", "notes", "off", "write_note"); code != 0 || !strings.Contains(out, "write_note of notes turned off") {
		t.Fatalf("tools off: %d %q %s", code, out, errs)
	}
	g.waitNote("notifications/tools/list_changed", n)
	if names := g.listedTools(); slices.Contains(names, "notes__write_note") || !slices.Contains(names, "notes__read_note") {
		t.Errorf("tools/list after off: %v", names)
	}
	res, errText := g.call("tools/call", map[string]any{"name": "notes__write_note", "arguments": map[string]any{}})
	if errText != "" {
		t.Fatalf("call of an off tool: protocol error %s", errText)
	}
	if text, isErr := callResult(t, res); !isErr || !strings.Contains(text, "turned off in mcptray") {
		t.Errorf("call of an off tool: %q isError=%t", text, isErr)
	}
	after, _ := os.ReadFile(in.Config)
	added := `,` + "\n      " + `"x-mcptray": {"disabledTools": ["write_note"]}`
	if !strings.Contains(string(after), added) || len(after) != len(before)+len(added) {
		t.Errorf("mcp.json after off:\n%s\nbefore:\n%s", after, before)
	}
	code, out, _ = in.Run("tools", "notes")
	if code != 0 || !regexpLine(out, `write_note\s+off`) || !regexpLine(out, `read_note\s+on\s+read-only,idempotent\s+Read a note\s+Reads a note\.$`) {
		t.Errorf("tools notes:\n%s", out)
	}

	n = len(g.notes)
	if code, _, errs := in.Run("tools", "notes", "on", "write_note"); code != 0 {
		t.Fatalf("tools on: %s", errs)
	}
	g.waitNote("notifications/tools/list_changed", n)
	on := callAsync(t, g, "notes__write_note", map[string]any{"a": 1}) // no hints: it asks
	if code, _, errs := in.Run("inbox", "answer", w.asks(on, "write_note").ID, "--yes"); code != 0 {
		t.Fatal(errs)
	}
	if text, isErr := awaitCall(t, on); isErr != "" || text != `write_note: {"a":1}` {
		t.Errorf("write_note on again: %q", text)
	}
	if st := in.Status(); st.Servers[0].PID != pid || st.Servers[0].Restarts != 0 {
		t.Errorf("the server restarted: %+v", st.Servers[0])
	}

	// A glob keeps a tool off; turning it on by name says so.
	if code, _, _ := in.Run("tools", "notes", "off", "write_note"); code != 0 {
		t.Fatal("off again")
	}
	raw, _ := os.ReadFile(in.Config)
	os.WriteFile(in.Config, []byte(strings.Replace(string(raw), `["write_note"]`, `["write_note", "*_note"]`, 1)), 0o600)
	in.WaitFor("the glob applied", func(statusJSON) bool {
		_, out, _ := in.Run("tools", "notes")
		return regexpLine(out, `read_note\s+off`)
	})
	if code, _, errs := in.Run("tools", "notes", "on", "write_note"); code != 1 || !strings.Contains(errs, `the pattern "*_note"`) {
		t.Errorf("on under a glob: %d %s", code, errs)
	}
}

// Without a running instance, `tools NAME off TOOL` edits mcp.json itself.
func TestToolSwitchWithoutInstance(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcp.json")
	os.WriteFile(cfg, []byte("{\n  \"mcpServers\": {\n    \"fs\": {\"command\": \"x\"}\n  }\n}\n"), 0o600)
	code, out, errs := cli(t, "tools", "--config", cfg, "--data", filepath.Join(dir, "data"), "fs", "off", "write_file")
	if code != 0 || !strings.Contains(out, "mcptray is not running") {
		t.Fatalf("%d %q %s", code, out, errs)
	}
	b, _ := os.ReadFile(cfg)
	if want := "{\n  \"mcpServers\": {\n    \"fs\": {\"command\": \"x\", \"x-mcptray\": {\"disabledTools\": [\"write_file\"]}}\n  }\n}\n"; string(b) != want {
		t.Errorf("mcp.json:\n%s\nwant\n%s", b, want)
	}
	if code, _, _ := cli(t, "tools", "fs", "sideways", "write_file"); code != 2 {
		t.Errorf("bad on|off: exit %d", code)
	}
}
