package mcptest

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// addParkTools adds to the asker-mrtr server the tools that test the
// gateway's park (a 2025-11-25 server's questions relayed to a
// 2026-07-28 assistant):
//
//	three_op   asks a name (elicitation), a greeting (sampling) and the
//	           roots in one round; the SDK sends a 2025-11-25 client the
//	           three requests at once. The result names the three answers.
//	sample_op  asks a greeting (sampling) only
//	rounds_op  two rounds: a name (state "", then "round=1"), then a
//	           colour (requestState "round=2;name=N"); for a 2025-11-25
//	           client the SDK asks the first round as a request, and the
//	           second goes out as the result (inputRequests and
//	           requestState, no resultType)
//
// the prompt name_prompt and the resource park://name, which ask a name
// the same way as name_op.
func addParkTools(s *sdk.Server) {
	nameSchema := map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}}
	greeting := &sdk.CreateMessageParams{MaxTokens: 20, Messages: []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: "Say hello"}}}}
	s.AddTool(&sdk.Tool{Name: "three_op", Description: "Asks three questions at once.", InputSchema: rawSchema(`{"type":"object"}`), Annotations: notDestructive()},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			in := req.Params.InputResponses
			if len(in) > 0 {
				name, _ := in["name"].(*sdk.ElicitResult)
				roots, _ := in["roots"].(*sdk.ListRootsResult)
				var who, hello string
				if name != nil {
					who, _ = name.Content["name"].(string)
				}
				hello = samplingText(in["greeting"])
				var uris []string
				if roots != nil {
					for _, r := range roots.Roots {
						uris = append(uris, r.URI)
					}
				}
				return text(fmt.Sprintf("name %s, greeting %s, roots %s", who, hello, strings.Join(uris, " "))), nil
			}
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{
				"name":     &sdk.ElicitParams{Message: "Your name?", RequestedSchema: nameSchema},
				"greeting": greeting,
				"roots":    &sdk.ListRootsParams{},
			}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "name_prompt", Description: "Asks a name."},
		func(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			if r, ok := req.Params.InputResponses["name"].(*sdk.ElicitResult); ok {
				name, _ := r.Content["name"].(string)
				return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Hello " + name}}}}, nil
			}
			return &sdk.GetPromptResult{InputRequests: sdk.InputRequestMap{"name": &sdk.ElicitParams{Message: "Your name?", RequestedSchema: nameSchema}}}, nil
		})
	s.AddResource(&sdk.Resource{Name: "name", URI: "park://name", MIMEType: "text/plain"},
		func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			if r, ok := req.Params.InputResponses["name"].(*sdk.ElicitResult); ok {
				name, _ := r.Content["name"].(string)
				return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "Hello " + name}}}, nil
			}
			// Contents empty, not nil: go-sdk v1.8 refuses nil contents
			// before its multi-round-trip middleware sees the questions
			// of a 2025-11-25 client's request.
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{}, InputRequests: sdk.InputRequestMap{"name": &sdk.ElicitParams{Message: "Your name?", RequestedSchema: nameSchema}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "sample_op", Description: "Asks for sampling.", InputSchema: rawSchema(`{"type":"object"}`), Annotations: notDestructive()},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if r, ok := req.Params.InputResponses["greeting"]; ok {
				return text("greeting " + samplingText(r)), nil
			}
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"greeting": greeting}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "rounds_op", Description: "Asks in two rounds.", InputSchema: rawSchema(`{"type":"object"}`), Annotations: notDestructive()},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			st := req.Params.RequestState
			switch {
			case st == "":
				return &sdk.CallToolResult{RequestState: "round=1", InputRequests: sdk.InputRequestMap{
					"step1": &sdk.ElicitParams{Message: "Your name?", RequestedSchema: nameSchema}}}, nil
			case st == "round=1":
				var name string
				if r, ok := req.Params.InputResponses["step1"].(*sdk.ElicitResult); ok {
					name, _ = r.Content["name"].(string)
				}
				return &sdk.CallToolResult{RequestState: "round=2;name=" + name, InputRequests: sdk.InputRequestMap{
					"step2": &sdk.ElicitParams{Message: "Your colour?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"colour": map[string]any{"type": "string"}}}}}}, nil
			}
			var colour string
			if r, ok := req.Params.InputResponses["step2"].(*sdk.ElicitResult); ok {
				colour, _ = r.Content["colour"].(string)
			}
			return text(fmt.Sprintf("%s likes %s", strings.TrimPrefix(st, "round=2;name="), colour)), nil
		})
}

// samplingText is the text of a sampling answer (either result type).
func samplingText(r sdk.InputResponse) string {
	switch r := r.(type) {
	case *sdk.CreateMessageWithToolsResult:
		for _, c := range r.Content {
			if t, ok := c.(*sdk.TextContent); ok {
				return t.Text
			}
		}
	case *sdk.CreateMessageResult:
		if t, ok := r.Content.(*sdk.TextContent); ok {
			return t.Text
		}
	}
	return ""
}
