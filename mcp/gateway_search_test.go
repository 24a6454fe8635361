//go:build linux

package mcp

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// search calls search_tools and reads its answer, checking that the
// structured content and the text say the same.
func search(t *testing.T, c *testClient, args map[string]any) []foundTool {
	t.Helper()
	res, _, err := c.call(t, metaSearch, args)
	if err != nil || res.IsError {
		t.Fatalf("search %v: %v %+v", args, err, res)
	}
	var fromText searchAnswer
	var text, structured any
	if err := json.Unmarshal([]byte(textOf(t, res)), &fromText); err != nil {
		t.Fatalf("search text is not JSON: %v", err)
	}
	json.Unmarshal([]byte(textOf(t, res)), &text)
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &structured)
	if !reflect.DeepEqual(text, structured) {
		t.Errorf("text and structuredContent differ:\n%s\n%s", textOf(t, res), b)
	}
	return fromText.Tools
}

func hitNames(hits []foundTool) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Server+"/"+h.Tool)
	}
	return out
}

// TestSearchTools: search_tools finds the tools of ready servers (their
// schema as sent, a destructive one marked for approval) and of servers
// that are off (by their last known tools, with how to turn them on);
// never a tool turned off or held back; a tool a server adds is found
// after its list_changed; bad arguments get isError text.
func TestSearchTools(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	cached := []*downstream.Tool{{Name: "send_mail", Description: "Sends an email message.", InputSchema: map[string]any{"type": "object"}}}
	g.SetConfigured([]ConfiguredServer{
		{Name: "notes", Enabled: true, State: "starting"},
		{Name: "c", Enabled: true, State: "starting"},
		{Name: "mail", Enabled: false, State: "disabled", CachedTools: cached},
	})
	addServer(t, g, "notes", "echo", withEnv(mcptest.AnnotatedEnv+"=1"))
	g.SetPolicy("notes", &ToolPolicy{Approve: ApproveDestructive})
	c := addServer(t, g, "c", "changing")
	dyn := connectStream(t, g, UpstreamOptions{Tools: ToolsDynamic}, nil)

	hits := search(t, dyn, map[string]any{"query": "delete note"})
	if len(hits) == 0 || hits[0].Server != "notes" || hits[0].Tool != "delete_note" {
		t.Fatalf("delete note: %v", hitNames(hits))
	}
	del := hits[0]
	if del.Name != "notes__delete_note" || del.State != "ready" || del.Approval == "" || del.Description != "Deletes a note." ||
		string(del.InputSchema) != `{"type":"object"}` || !strings.Contains(string(del.Annotations), `"destructiveHint":true`) {
		t.Errorf("delete_note hit: %+v", del)
	}
	for _, h := range hits {
		if h.Tool == "read_note" && h.Approval != "" {
			t.Errorf("read_note needs no approval: %+v", h)
		}
	}

	hits = search(t, dyn, map[string]any{"query": "send email"})
	if len(hits) == 0 || hits[0].Server != "mail" || hits[0].State != "disabled" || hits[0].Hint != "turn it on with: mcptray toggle mail on" {
		t.Errorf("a server that is off: %+v", hits)
	}

	// A single-server route searches that server only, under its own names.
	single := connectStream(t, g, UpstreamOptions{Server: "notes", Tools: ToolsDynamic}, nil)
	hits = search(t, single, map[string]any{"query": "send email delete note"})
	if len(hits) == 0 || hits[0].Name != "delete_note" || slices.Contains(hitNames(hits), "mail/send_mail") {
		t.Errorf("single-server route: %+v", hits)
	}
	if res, _, err := single.call(t, metaSearch, map[string]any{"query": "mail", "server": "mail"}); err != nil || !res.IsError || !strings.Contains(textOf(t, res), `this endpoint serves only "notes"`) {
		t.Errorf("single-server route, another server: %v %+v", err, res)
	}

	// limit bounds the answer; server narrows it.
	if hits := search(t, dyn, map[string]any{"query": "note", "limit": 1}); len(hits) != 1 {
		t.Errorf("limit 1: %v", hitNames(hits))
	}
	if hits := search(t, dyn, map[string]any{"query": "note mail", "server": "mail"}); !slices.Equal(hitNames(hits), []string{"mail/send_mail"}) {
		t.Errorf("server mail: %v", hitNames(hits))
	}

	// Off and held back: not found.
	g.SetPolicy("notes", &ToolPolicy{Approve: ApproveDestructive, Disabled: []string{"delete_*"}})
	g.SetHeld("notes", map[string]string{"write_note": "its description changed"})
	hits = search(t, dyn, map[string]any{"query": "note"})
	if names := hitNames(hits); slices.Contains(names, "notes/delete_note") || slices.Contains(names, "notes/write_note") || !slices.Contains(names, "notes/read_note") {
		t.Errorf("off or held tools found: %v", names)
	}

	// ... nor called through call_tool.
	for tool, want := range map[string]string{"delete_note": "turned off in mcptray", "write_note": "held back by mcptray"} {
		res, _, err := dyn.call(t, metaCall, map[string]any{"server": "notes", "tool": tool, "arguments": map[string]any{}})
		if err != nil || !res.IsError || !strings.Contains(textOf(t, res), want) {
			t.Errorf("call_tool %s: %v %+v", tool, err, res)
		}
	}

	// A tool the server adds (list_changed) is found.
	if _, _, err := dyn.call(t, metaCall, map[string]any{"server": "c", "tool": "add_tool", "arguments": map[string]any{"name": "zebra_crossing"}}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "zebra_crossing found", func() bool {
		return slices.Contains(hitNames(search(t, dyn, map[string]any{"query": "zebra crossing"})), "c/zebra_crossing")
	})
	c.Close()
	g.SetServer("c", nil)
	// Gone from the gateway and from the configuration: gone from the index.
	g.SetConfigured([]ConfiguredServer{{Name: "notes", Enabled: true, State: "ready"}, {Name: "mail", Enabled: false, State: "disabled", CachedTools: cached}})
	if names := hitNames(search(t, dyn, map[string]any{"query": "zebra crossing"})); slices.Contains(names, "c/zebra_crossing") {
		t.Errorf("a removed server's tool found: %v", names)
	}

	for _, bad := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, `missing "query"`},
		{map[string]any{"query": "  "}, `missing "query"`},
		{map[string]any{"query": "note", "limit": 0}, `"limit" must be from 1 to 25 (got 0)`},
		{map[string]any{"query": "note", "limit": 26}, `"limit" must be from 1 to 25 (got 26)`},
		{map[string]any{"query": "note", "limit": "ten"}, "bad arguments"},
		{map[string]any{"query": 7}, "bad arguments"},
		{map[string]any{"query": "note", "server": "nope"}, `unknown server "nope"`},
	} {
		res, _, err := dyn.call(t, metaSearch, bad.args)
		if err != nil || !res.IsError || !strings.Contains(textOf(t, res), bad.want) {
			t.Errorf("search %v: %v %+v", bad.args, err, res)
		}
	}
}

// TestListToolsBrief: list_tools shows each tool's first sentence, at
// most about 100 characters, never the whole description.
func TestListToolsBrief(t *testing.T) {
	long := "Reads the contents of a file at the given path and returns it as text, with line numbers added for reference by the model. Use it for small files."
	g, _ := newTestGateway(t, GatewayOptions{})
	g.SetConfigured([]ConfiguredServer{{Name: "fs", Enabled: false, State: "disabled", CachedTools: []*downstream.Tool{
		{Name: "read_file", Description: long, InputSchema: map[string]any{"type": "object"}},
		{Name: "stat", Description: "Gives a file's size. Then more.\nAnd more.", InputSchema: map[string]any{"type": "object"}},
	}}})
	dyn := connectStream(t, g, UpstreamOptions{Tools: ToolsDynamic}, nil)
	res, _, err := dyn.call(t, metaList, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := textOf(t, res)
	if strings.Contains(text, "Use it for small files") || strings.Contains(text, "Then more") || !strings.Contains(text, "  - stat: Gives a file's size.\n") {
		t.Errorf("list_tools:\n%s", text)
	}
	for line := range strings.SplitSeq(text, "\n") {
		if _, desc, ok := strings.Cut(line, ": "); ok && len([]rune(desc)) > briefMax {
			t.Errorf("line longer than %d: %q", briefMax, line)
		}
	}
}

func TestBrief(t *testing.T) {
	for in, want := range map[string]string{
		"":                          "",
		"Lists files.":              "Lists files.",
		"Lists files. Then more.":   "Lists files.",
		"Lists files\nsecond line.": "Lists files",
		"v1.2 is read.":             "v1.2 is read.",
		strings.Repeat("word ", 40): strings.TrimSpace(strings.Repeat("word ", 19)) + "…",
	} {
		if got := brief(in); got != want {
			t.Errorf("brief(%q) = %q, want %q", in, got, want)
		}
	}
}
