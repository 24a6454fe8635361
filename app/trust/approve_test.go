package trust

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/mcp"
)

func TestFoldArgs(t *testing.T) {
	long := strings.Repeat("é", 300)
	items := make([]string, 25)
	for i := range items {
		items[i] = `"i"`
	}
	got := foldArgs([]byte(`{"path": "/x", "n": 12345678901234567890, "text": "` + long + `", "list": [` + strings.Join(items, ",") + `], "html": "<b>&"}`))
	for _, want := range []string{
		"{\n  \"html\": \"<b>&\",",
		`"n": 12345678901234567890`,
		strings.Repeat("é", 240) + "… (60 more characters)",
		`"… (5 more items)"`,
		`"path": "/x"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("foldArgs lacks %q:\n%s", want, got)
		}
	}
	if got := foldArgs([]byte("not json")); got != "not json" {
		t.Errorf("not JSON: %q", got)
	}
	deep := strings.Repeat(`{"a":`, 12) + "1" + strings.Repeat("}", 12)
	if got := foldArgs([]byte(deep)); !strings.Contains(got, "… (an object of 1 members)") {
		t.Errorf("deep: %s", got)
	}
	if got := foldArgs([]byte(`"` + strings.Repeat("x", 20000) + `"`)); len(got) > foldTotal+64 {
		t.Errorf("total not bounded: %d bytes", len(got))
	}
}

func TestApprovalWhy(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mode        string
		destructive bool
		want        string
	}{
		{config.ApproveAll, false, `x-mcptray.approve is "all": every call asks`},
		{config.ApproveWrites, true, `x-mcptray.approve is "writes": the tool does not say it only reads`},
		{config.ApproveDestructive, true, "the tool says it may destroy data (destructiveHint)"},
		{config.ApproveDestructive, false, UnsaidWhy},
	} {
		if got := approvalWhy(c.mode, c.destructive); got != c.want {
			t.Errorf("approvalWhy(%q, %v) = %q, want %q", c.mode, c.destructive, got, c.want)
		}
	}
}

// A call's approval asks the real inbox; each answer gives the gateway
// its Approval, and "always" writes allowTools, or falls back to the
// session when mcp.json cannot be written.
func TestCallsApprove(t *testing.T) {
	k := newKit(t)
	var allowed []string
	k.opts.AllowTool = func(server, tool string) error {
		if tool == "readonly_fs" {
			return errors.New("mcp.json is read-only")
		}
		allowed = append(allowed, server+"/"+tool)
		return nil
	}
	calls := NewCalls(k.opts)
	for _, c := range []struct {
		tool   string
		answer inbox.Answer
		want   mcp.Approval
	}{
		{"a", inbox.Answer{Action: inbox.ActionDecline}, mcp.Deny},
		{"b", inbox.Answer{Action: inbox.ActionAccept}, mcp.AllowOnce},
		{"c", inbox.Answer{Action: inbox.ActionAccept, Scope: inbox.ScopeSession}, mcp.AllowSession},
		{"d", inbox.Answer{Action: inbox.ActionAccept, Scope: inbox.ScopeAlways}, mcp.AllowAlways},
		{"readonly_fs", inbox.Answer{Action: inbox.ActionAccept, Scope: inbox.ScopeAlways}, mcp.AllowSession},
	} {
		got := make(chan mcp.Approval, 1)
		go func() {
			a, _ := calls.Approve(context.Background(), mcp.ApprovalRequest{Server: "notes", Tool: c.tool, Client: "Claude", Arguments: []byte(`{"x":1}`)})
			got <- a
		}()
		req := k.answer(t, inbox.KindApproval, c.answer)
		if req.Tool != c.tool || req.Approval == nil || req.Approval.Arguments != "{\n  \"x\": 1\n}" || req.Message != "Claude wants to call "+c.tool+" of notes." {
			t.Errorf("request %+v %+v", req, req.Approval)
		}
		if a := <-got; a != c.want {
			t.Errorf("%s: approval %v, want %v", c.tool, a, c.want)
		}
	}
	if len(allowed) != 1 || allowed[0] != "notes/d" {
		t.Errorf("allowTools written for %q", allowed)
	}
	if !k.logged("notes: readonly_fs allowed always, but mcp.json could not be written (mcp.json is read-only): allowed for this session only") {
		t.Errorf("no log line for the failed write: %q", k.lines)
	}
}
