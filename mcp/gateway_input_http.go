package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// callHTTP is an HTTP server's tools/call through the SDK's client, with
// the input loop (the SDK's own is off for HTTP sessions:
// downstream.Session.newHTTPClient): each input_required round is
// answered as a stdio server's is (answerInput; relayed to a 2026-07-28
// assistant that can answer it) and the call retried with the answers and
// the requestState as it came. A retry of a relayed round (ctx: withRetry)
// goes out with the server's own requestState.
func (g *Gateway) callHTTP(ctx context.Context, c *call, p *sdk.CallToolParams) (*sdk.CallToolResult, error) {
	if _, ok := ctx.Value(retryKey{}).(retryIn); ok {
		line, err := g.retryOf(ctx, c, []byte(`{"params":{}}`))
		if err != nil {
			return nil, err
		}
		var rp struct {
			Params struct {
				InputResponses sdk.InputResponseMap `json:"inputResponses"`
				RequestState   string               `json:"requestState"`
			} `json:"params"`
		}
		if err := json.Unmarshal(line, &rp); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("server %q, tool %q: inputResponses: %v", c.server, c.tool, err)}
		}
		p.InputResponses, p.RequestState = rp.Params.InputResponses, rp.Params.RequestState
	}
	for {
		res, err := c.sess.Client().CallTool(ctx, p)
		if err != nil || !res.NeedsInput() {
			return res, err
		}
		c.rounds++
		if c.rounds > maxInputRounds {
			return nil, inputRPCError(c.sess, &inputError{fmt.Sprintf("server %q asked for input more than %d times during one call of %q; mcptray stopped the call", c.server, maxInputRounds, c.tool)})
		}
		b, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		responses, state, err := g.answerInput(ctx, c, b)
		var relay *relayed
		switch {
		case errors.As(err, &relay):
			return nil, relay
		case err != nil:
			return nil, inputRPCError(c.sess, err)
		}
		var irm sdk.InputResponseMap
		if err := json.Unmarshal(responses, &irm); err != nil {
			return nil, inputRPCError(c.sess, err)
		}
		cp := *p
		cp.InputResponses, cp.RequestState = irm, ""
		if state != nil {
			json.Unmarshal(state, &cp.RequestState)
		}
		p = &cp
	}
}
