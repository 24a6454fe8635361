package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Relaying input_required to an assistant on 2026-07-28: when every
// question of a round is one the assistant may answer (no secret, no
// consent or sign-in the server keeps for the person, elicitation not
// "local", and the assistant declared the capability in its request's
// _meta), the gateway answers the assistant's call with the round as
// input_required — the questions as the server sent them (redacted), and
// the server's requestState sealed (gateway_seal.go). The assistant's
// retry comes back as a new tools/call with inputResponses and that
// requestState: the slow path (fastCall leaves it) opens the seal,
// refuses a changed, foreign, stale or other call's one with an error
// saying so, and sends the server the retry with its own state. A round
// with any question for the person is answered here, as for an older
// assistant (the inbox).

// relayed is nextRound's "error" when the round goes to the assistant:
// result is the input_required result it gets.
type relayed struct{ result []byte }

func (r *relayed) Error() string { return "input_required relayed to the assistant" }

// relayRound is the round of result (a new-wire server's input_required,
// whose questions qs are already checked) as the call's assistant gets
// it, or nil when the gateway must answer it itself.
func (g *Gateway) relayRound(c *call, result []byte, qs map[string]*inputQuestion) *relayed {
	if !c.newWire || c.upCaps == nil || g.elicitLocal.Load() {
		return nil
	}
	for _, q := range qs {
		if !relayable(c.upCaps, q) {
			return nil
		}
	}
	var state []byte
	if st := wire.Field(result, "requestState"); st.OK() {
		state = st.Of(result)
	}
	irs := c.sess.RedactJSON(wire.Field(result, "inputRequests").Of(result))
	out := make([]byte, 0, len(irs)+256)
	out = append(out, `{"resultType":"input_required","inputRequests":`...)
	out = append(out, irs...)
	out = append(out, `,"requestState":`...)
	out = append(out, wire.QuoteJSON(g.seal.seal(c.server, c.tool, state))...)
	out = append(out, '}')
	g.log.Info("input_required relayed to the assistant", "server", c.server, "tool", c.tool, "questions", len(qs))
	return &relayed{result: out}
}

// inputQuestion is one question of an input_required result.
type inputQuestion struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// relayable reports whether the assistant whose capabilities are caps
// may be asked q: a question that is no secret and that the server does
// not keep for the person, of a kind the assistant declared.
func relayable(caps []byte, q *inputQuestion) bool {
	switch q.Method {
	case "elicitation/create":
		var ep sdk.ElicitParams
		if json.Unmarshal(q.Params, &ep) != nil || len(SecretFields(ep.RequestedSchema)) > 0 || ep.Meta[InboxOnlyMeta] == true {
			return false
		}
		e := wire.Field(caps, "elicitation")
		if !e.OK() || e.Is(caps, "null") {
			return false
		}
		eb := e.Of(caps)
		form, url := wire.Field(eb, "form").OK(), wire.Field(eb, "url").OK()
		if ep.Mode == "url" || (ep.Mode == "" && ep.URL != "") {
			return url
		}
		return form || !url
	case "sampling/createMessage":
		s := wire.Field(caps, "sampling")
		return s.OK() && !s.Is(caps, "null")
	case "roots/list":
		r := wire.Field(caps, "roots")
		return r.OK() && !r.Is(caps, "null")
	}
	return false
}

// retryKey carries a tools/call's inputResponses and requestState from
// the view's handler to forward.
type retryKey struct{}

type retryIn struct {
	responses []byte // the inputResponses object, or nil
	state     string // the requestState, or ""
}

// withRetry is ctx carrying the retry fields of params, if it has any.
func withRetry(ctx context.Context, params *sdk.CallToolParamsRaw) context.Context {
	if params == nil || (params.RequestState == "" && params.InputResponses == nil) {
		return ctx
	}
	r := retryIn{state: params.RequestState}
	if params.InputResponses != nil {
		r.responses, _ = json.Marshal(params.InputResponses)
	}
	return context.WithValue(ctx, retryKey{}, r)
}

// retryOf is the request line of call c with the retry ctx carries, if
// any: its inputResponses, and the server's requestState out of the
// sealed one. A requestState that does not open for this call is
// refused, and so are inputResponses without one.
func (g *Gateway) retryOf(ctx context.Context, c *call, line []byte) ([]byte, error) {
	r, ok := ctx.Value(retryKey{}).(retryIn)
	if !ok {
		return line, nil
	}
	if r.state == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"server %q, tool %q: inputResponses without the requestState mcptray gave: call the tool again without them", c.server, c.tool)}
	}
	state, err := g.seal.open(r.state, c.server, c.tool)
	if err != nil {
		g.log.Info("a retry's requestState refused", "server", c.server, "tool", c.tool, "why", err.Error())
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("server %q, tool %q: %v", c.server, c.tool, err)}
	}
	responses := r.responses
	if responses == nil {
		responses = []byte("{}")
	}
	return retryLine(line, responses, state)
}
