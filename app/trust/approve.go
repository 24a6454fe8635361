package trust

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/mcp"
)

// Approval before a call (DESIGN.md §14): a call of a tool that needs it
// (x-mcptray.approve, top level or per entry) waits in the inbox, for the
// person only, as a request of kind approval. The gateway routes such a
// tool past its fast path and asks here (mcp.GatewayOptions.Approve); a yes
// reaches this call, the tool for the assistant's session, or the tool for
// good (written to the entry's x-mcptray.allowTools). A no, or the
// deadline, gives the assistant isError text: mcp.DeclinedText.

// Calls approves calls: Approve is the gateway's Approve. It keeps no
// state of its own.
type Calls struct {
	o Options
}

// NewCalls returns the approval of calls. It uses o.Log, o.Ask,
// o.Timeout, o.Mode, o.AllowTool and o.InboxLog.
func NewCalls(o Options) *Calls { return &Calls{o: o} }

// Approve is the gateway's Approve: it asks the person about the call req.
func (k *Calls) Approve(ctx context.Context, req mcp.ApprovalRequest) (mcp.Approval, error) {
	mode := k.o.Mode(req.Server)
	ca := &inbox.CallApproval{Arguments: foldArgs(req.Arguments)}
	if a := req.Annotations; a != nil {
		ca.ReadOnly = a.ReadOnlyHint
		ca.Destructive = a.DestructiveHint != nil && *a.DestructiveHint
	}
	ca.Why = approvalWhy(mode, ca.Destructive)
	who := req.Client
	if who == "" {
		who = "An assistant"
	}
	ir := inbox.Request{Kind: inbox.KindApproval, Server: req.Server, Tool: req.Tool, Client: req.Client, Source: inbox.SourceMcptray,
		Message: fmt.Sprintf("%s wants to call %s of %s.", who, req.Tool, req.Server),
		Mode:    "form", Confirm: true, Approval: ca}
	r := k.o.Ask.Ask(ctx, ir, "", k.o.Timeout())
	if r.Outcome != inbox.ActionAccept {
		return mcp.Deny, nil
	}
	switch r.Scope {
	case inbox.ScopeSession:
		return mcp.AllowSession, nil
	case inbox.ScopeAlways:
		if err := k.allowAlways(req.Server, req.Tool); err != nil {
			k.o.Log.Warn("writing allowTools", "server", req.Server, "tool", req.Tool, "err", err)
			k.o.InboxLog(req.Server, fmt.Sprintf("%s allowed always, but mcp.json could not be written (%v): allowed for this session only", req.Tool, err))
			return mcp.AllowSession, nil
		}
		return mcp.AllowAlways, nil
	}
	return mcp.AllowOnce, nil
}

// UnsaidWhy is why a call asks under approve "destructive" when its tool
// does not say destructiveHint: true but leaves its hints out: by the MCP
// spec's defaults it may destroy data.
const UnsaidWhy = "this tool doesn't say whether it changes anything (no readOnlyHint or destructiveHint)"

// approvalWhy says why a call asks, for the person; destructive: its tool
// says destructiveHint: true.
func approvalWhy(mode string, destructive bool) string {
	switch mode {
	case config.ApproveAll:
		return `x-mcptray.approve is "all": every call asks`
	case config.ApproveWrites:
		return `x-mcptray.approve is "writes": the tool does not say it only reads`
	}
	if destructive {
		return "the tool says it may destroy data (destructiveHint)"
	}
	return UnsaidWhy
}

// allowAlways adds tool to the entry's x-mcptray.allowTools in mcp.json
// (config.File.AllowTool, given as Options.AllowTool).
func (k *Calls) allowAlways(server, tool string) error {
	return k.o.AllowTool(server, tool)
}

// Limits of the arguments an approval request shows.
const (
	foldString = 240     // characters of a string value shown
	foldItems  = 20      // items of an array shown
	foldDepth  = 8       // levels of nesting shown
	foldTotal  = 8 << 10 // bytes of the whole text shown
)

// foldArgs pretty-prints a call's arguments for a person: indented, with
// long strings and arrays cut ("… (N more characters)"), deep nesting
// elided, and the whole bounded.
func foldArgs(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return cut(string(raw), foldTotal)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(fold(v, 0)); err != nil {
		return cut(string(raw), foldTotal)
	}
	return cut(strings.TrimRight(b.String(), "\n"), foldTotal)
}

func fold(v any, depth int) any {
	switch x := v.(type) {
	case string:
		return cut(x, foldString)
	case []any:
		if depth >= foldDepth {
			return fmt.Sprintf("… (a list of %d items)", len(x))
		}
		n := min(len(x), foldItems)
		out := make([]any, 0, n+1)
		for _, e := range x[:n] {
			out = append(out, fold(e, depth+1))
		}
		if len(x) > n {
			out = append(out, fmt.Sprintf("… (%d more items)", len(x)-n))
		}
		return out
	case map[string]any:
		if depth >= foldDepth {
			return fmt.Sprintf("… (an object of %d members)", len(x))
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[cut(k, foldString)] = fold(e, depth+1)
		}
		return out
	}
	return v
}

// cut keeps the first max characters of s, saying how many it left out.
func cut(s string, max int) string {
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	i := 0
	for range max {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return fmt.Sprintf("%s… (%d more characters)", s[:i], n-max)
}
