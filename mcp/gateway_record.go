package mcp

import (
	"context"
	"errors"
	"time"

	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolCallRecord is what the gateway tells GatewayOptions.OnToolCall about
// one tool call to a server: never its arguments or its result.
type ToolCallRecord struct {
	Server   string
	Tool     string // the server's own name for the tool
	Started  time.Time
	Duration time.Duration
	Outcome  string // outcomeOK, OutcomeError, OutcomeCancelled or OutcomeTimeout
}

// Outcomes of a tool call.
const (
	outcomeOK        = "ok"        // a result without isError
	OutcomeError     = "error"     // isError, a JSON-RPC error, the server down or gone mid-call
	OutcomeCancelled = "cancelled" // the assistant cancelled it or went away
	OutcomeTimeout   = "timeout"   // the call timeout passed
)

// recordCall reports a fast-path call's end.
func (g *Gateway) recordCall(c *call, outcome string) {
	if g.opts.OnToolCall == nil || c.method != "" {
		return
	}
	g.opts.OnToolCall(ToolCallRecord{Server: c.server, Tool: c.tool, Started: c.started, Duration: time.Since(c.started), Outcome: outcome})
}

// recordReply reports a fast-path call the server answered; line is its
// reply. It runs after the reply went to the assistant.
func (g *Gateway) recordReply(c *call, line []byte, p *wire.Peek) {
	if g.opts.OnToolCall == nil {
		return
	}
	outcome := outcomeOK
	if p.Err.OK() || isErrorResult(p.Result.Of(line)) {
		outcome = OutcomeError
	}
	g.recordCall(c, outcome)
}

// isErrorResult reports whether a raw tools/call result has
// "isError": true.
func isErrorResult(result []byte) bool {
	return len(result) > 0 && wire.Field(result, "isError").Is(result, "true")
}

// recordForward reports a slow-path call (forward) once it returns.
func (g *Gateway) recordForward(ctx context.Context, server, tool string, started time.Time, res *sdk.Result, err *error) {
	outcome := outcomeOK
	var werr *jsonrpc.Error
	switch {
	case *err != nil && errors.As(*err, &werr) && werr.Code == codeTimeout:
		outcome = OutcomeTimeout
	case *err != nil && (ctx.Err() != nil || errors.Is(*err, context.Canceled)):
		outcome = OutcomeCancelled
	case *err != nil:
		outcome = OutcomeError
	default:
		switch r := (*res).(type) {
		case *sdk.CallToolResult:
			if r.IsError {
				outcome = OutcomeError
			}
		case *rawResult:
			if isErrorResult(r.raw) {
				outcome = OutcomeError
			}
		}
	}
	g.opts.OnToolCall(ToolCallRecord{Server: server, Tool: tool, Started: started, Duration: time.Since(started), Outcome: outcome})
}
