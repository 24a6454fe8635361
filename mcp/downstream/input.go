package downstream

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxInputRounds bounds the input_required rounds of one request to a
// server on 2026-07-28: the gateway's for tools/call
// (mcp/gateway_input.go), inputRounds' for prompts/get and resources/read.
const MaxInputRounds = 8

// inputRounds is an HTTP session's sending middleware in place of the
// SDK's own multi-round-trip one: a prompts/get or resources/read that
// answers input_required gets its questions answered through the
// session's Router (elicitation, sampling; roots: none) and is retried
// with the answers and the requestState, at most MaxInputRounds times.
// A tools/call's input_required goes back to the caller (the gateway).
func (s *Session) inputRounds(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method != "prompts/get" && method != "resources/read" {
			return next(ctx, method, req)
		}
		for round := 0; ; round++ {
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			var irs sdk.InputRequestMap
			var state string
			switch r := res.(type) {
			case *sdk.GetPromptResult:
				if !r.NeedsInput() {
					return res, nil
				}
				irs, state = r.InputRequests, r.RequestState
			case *sdk.ReadResourceResult:
				if !r.NeedsInput() {
					return res, nil
				}
				irs, state = r.InputRequests, r.RequestState
			default:
				return res, nil
			}
			if round >= MaxInputRounds {
				return nil, fmt.Errorf("the server asked for input more than %d times during one %s; mcptray stopped it", MaxInputRounds, method)
			}
			if len(irs) == 0 {
				return nil, fmt.Errorf("the server asked for input during %s but listed no question (it may be busy)", method)
			}
			responses := make(sdk.InputResponseMap, len(irs))
			for id, ir := range irs {
				ans, err := s.answerInput(ctx, ir)
				if err != nil {
					return nil, fmt.Errorf("answering input %q of %s: %w", id, method, err)
				}
				responses[id] = ans
			}
			cs, _ := req.GetSession().(*sdk.ClientSession)
			switch p := req.GetParams().(type) {
			case *sdk.GetPromptParams:
				cp := *p
				cp.InputResponses, cp.RequestState = responses, state
				req = &sdk.ClientRequest[*sdk.GetPromptParams]{Session: cs, Params: &cp}
			case *sdk.ReadResourceParams:
				cp := *p
				cp.InputResponses, cp.RequestState = responses, state
				req = &sdk.ClientRequest[*sdk.ReadResourceParams]{Session: cs, Params: &cp}
			default:
				return nil, fmt.Errorf("%s: params of type %T", method, p)
			}
		}
	}
}

// answerInput answers one question of an input_required result as the
// request of the same kind would be: through the Router.
func (s *Session) answerInput(ctx context.Context, ir sdk.InputRequest) (sdk.InputResponse, error) {
	switch p := ir.(type) {
	case *sdk.ElicitParams:
		if r := s.elicitRoute(); r != nil {
			return r.Elicit(ctx, s, p)
		}
		return &sdk.ElicitResult{Action: "cancel"}, nil
	case *sdk.CreateMessageWithToolsParams:
		r := s.attached()
		if r == nil {
			return nil, ErrNoAssistant
		}
		var msgs []*sdk.SamplingMessage
		for _, m := range p.Messages {
			if len(m.Content) != 1 {
				return nil, fmt.Errorf("a sampling message with %d contents", len(m.Content))
			}
			msgs = append(msgs, &sdk.SamplingMessage{Role: m.Role, Content: m.Content[0]})
		}
		return r.CreateMessage(ctx, s, &sdk.CreateMessageParams{Meta: p.Meta, IncludeContext: p.IncludeContext, MaxTokens: p.MaxTokens,
			Messages: msgs, Metadata: p.Metadata, ModelPreferences: p.ModelPreferences, StopSequences: p.StopSequences,
			SystemPrompt: p.SystemPrompt, Temperature: p.Temperature})
	case *sdk.ListRootsParams:
		return &sdk.ListRootsResult{Roots: []*sdk.Root{}}, nil // mcptray serves no roots
	}
	return nil, fmt.Errorf("an input request of an unknown kind (%T)", ir)
}
