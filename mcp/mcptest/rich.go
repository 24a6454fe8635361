package mcptest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// CancelFileEnv names a file the rich fake appends to: "started slow\n"
// when a call of its slow tool starts, "cancelled slow\n" when one is
// cancelled. (A cancellation that arrives before the tool has started ends
// the call without running it: wait for "started" to see one reach it.)
const CancelFileEnv = "MCPTRAY_FAKE_CANCELFILE"

// RichInputSchema is the rich tool's input schema: $schema, $defs,
// additionalProperties, a $ref.
const RichInputSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"$defs":{"flag":{"type":"boolean","description":"a flag"}},` +
	`"properties":{"isError":{"$ref":"#/$defs/flag"},"note":{"type":"string"}},"additionalProperties":false}`

// RichOutputSchema is the rich tool's output schema.
const RichOutputSchema = `{"type":"object","properties":{"answer":{"type":"integer"},"items":{"type":"array","items":{"type":"string"}}},"required":["answer"]}`

// addRich adds the rich mode's tools, resources and prompts:
//
//	rich {isError, note}  every content type (text with annotations and _meta,
//	                      image, audio, embedded resource, resource_link),
//	                      structuredContent, result _meta, isError as asked
//	slow {steps, ms}      steps progress notifications ms apart (when the
//	                      call has a progress token), honours cancellation
//	                      (noted in CancelFileEnv's file)
//	sampler {prompt}      asks the client for sampling/createMessage
//	elicitor {secret,     asks the client for a field "color" (or, with
//	  inbox}              secret, "password"); reports the action and, for
//	                      color, the value; inbox marks the request
//	                      _meta {"mcptray/inbox": true}
//	dies                  exits with code 5 mid-call
//	huge {mb}             one text block of mb MiB of 'x'
//	log {message, level}  sends notifications/message (at level; info
//	                      when none)
//	touch {uri}           sends notifications/resources/updated for uri
//
// Resources fake://readme and template fake://items/{id}; prompt greet
// {name, log} with completion of name (log, when set, is sent first as
// notifications/message at info); subscriptions.
func addRich(s *sdk.Server) {
	s.AddTool(&sdk.Tool{
		Name: "rich", Title: "Rich result", Description: "Returns every kind of content.",
		InputSchema:  rawSchema(RichInputSchema),
		OutputSchema: rawSchema(RichOutputSchema),
		Annotations:  &sdk.ToolAnnotations{ReadOnlyHint: true, Title: "rich"},
		Meta:         sdk.Meta{"fake/tool": "meta"},
	}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in struct {
			IsError bool   `json:"isError"`
			Note    string `json:"note"`
		}
		if err := unmarshalArgs(req, &in); err != nil {
			return nil, err
		}
		png := []byte("\x89PNG\r\n\x1a\nfake")
		return &sdk.CallToolResult{
			Meta: sdk.Meta{"fake/result": map[string]any{"n": 1, "note": in.Note}},
			Content: []sdk.Content{
				&sdk.TextContent{Text: "hello <b>&amp; \u00e9\u2603", Meta: sdk.Meta{"fake/block": true},
					Annotations: &sdk.Annotations{Audience: []sdk.Role{"user", "assistant"}, Priority: 0.5}},
				&sdk.ImageContent{Data: png, MIMEType: "image/png"},
				&sdk.AudioContent{Data: []byte("RIFFfake"), MIMEType: "audio/wav"},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "fake://readme", MIMEType: "text/plain", Text: "read me"}},
				&sdk.ResourceLink{URI: "fake://items/7", Name: "item 7", MIMEType: "text/plain"},
			},
			StructuredContent: map[string]any{"answer": 42, "items": []string{"a", "b"}},
			IsError:           in.IsError,
		}, nil
	})
	s.AddTool(&sdk.Tool{Name: "slow", Description: "Reports progress, honours cancellation.", InputSchema: rawSchema(`{"type":"object"}`), Annotations: notDestructive()},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct {
				Steps int `json:"steps"`
				MS    int `json:"ms"`
			}
			if err := unmarshalArgs(req, &in); err != nil {
				return nil, err
			}
			note("started slow")
			tok := req.Params.GetProgressToken()
			for i := range in.Steps {
				if tok != nil {
					req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i + 1), Total: float64(in.Steps), Message: fmt.Sprintf("step %d", i+1)})
				}
				select {
				case <-ctx.Done():
					noteCancel("slow")
					return nil, ctx.Err()
				case <-time.After(time.Duration(in.MS) * time.Millisecond):
				}
			}
			return text(fmt.Sprintf("done after %d steps", in.Steps)), nil
		})
	s.AddTool(&sdk.Tool{Name: "sampler", Description: "Asks the client to sample.", InputSchema: rawSchema(`{"type":"object"}`), Annotations: notDestructive()},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct {
				Prompt string `json:"prompt"`
			}
			unmarshalArgs(req, &in)
			res, err := req.Session.CreateMessage(ctx, &sdk.CreateMessageParams{
				MaxTokens: 10,
				Messages:  []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: in.Prompt}}},
			})
			if err != nil {
				return errorText("sampling failed: " + err.Error()), nil
			}
			tc, _ := res.Content.(*sdk.TextContent)
			if tc == nil {
				return errorText("sampling returned no text"), nil
			}
			return text("sampled: " + tc.Text), nil
		})
	s.AddTool(&sdk.Tool{Name: "elicitor", Description: "Asks the client for input.", InputSchema: rawSchema(`{"type":"object"}`), Annotations: notDestructive()},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct {
				Secret bool `json:"secret"`
				Inbox  bool `json:"inbox"`
			}
			unmarshalArgs(req, &in)
			field, msg := "color", "Which color?"
			if in.Secret {
				field, msg = "password", "Password for the vault"
			}
			var meta sdk.Meta
			if in.Inbox {
				meta = sdk.Meta{"mcptray/inbox": true}
			}
			res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{
				Meta:    meta,
				Message: msg,
				RequestedSchema: map[string]any{"type": "object",
					"properties": map[string]any{field: map[string]any{"type": "string", "title": strings.ToUpper(field[:1]) + field[1:]}},
					"required":   []any{field}},
			})
			if err != nil {
				return errorText("elicitation failed: " + err.Error()), nil
			}
			v, _ := res.Content[field].(string)
			if in.Secret {
				return text(fmt.Sprintf("action %s, secret of %d characters", res.Action, len(v))), nil
			}
			return text(fmt.Sprintf("action %s, color %q", res.Action, v)), nil
		})
	s.AddTool(&sdk.Tool{Name: "dies", Description: "Exits mid-call.", InputSchema: rawSchema(`{"type":"object"}`), Annotations: notDestructive()},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			os.Exit(5)
			return nil, nil
		})
	s.AddTool(&sdk.Tool{Name: "huge", Description: "A big result.", InputSchema: rawSchema(`{"type":"object","properties":{"mb":{"type":"integer"}}}`), Annotations: notDestructive()},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct {
				MB int `json:"mb"`
			}
			unmarshalArgs(req, &in)
			return text(strings.Repeat("x", in.MB<<20)), nil
		})
	s.AddTool(&sdk.Tool{Name: "log", Description: "Logs a message.", InputSchema: rawSchema(`{"type":"object"}`), Annotations: notDestructive()},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct {
				Message string `json:"message"`
				Level   string `json:"level"`
			}
			unmarshalArgs(req, &in)
			if in.Level == "" {
				in.Level = "info"
			}
			req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: sdk.LoggingLevel(in.Level), Logger: "fake", Data: in.Message})
			return text("logged"), nil
		})
	s.AddTool(&sdk.Tool{Name: "touch", Description: "Says a resource changed.", InputSchema: rawSchema(`{"type":"object"}`), Annotations: notDestructive()},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct {
				URI string `json:"uri"`
			}
			unmarshalArgs(req, &in)
			s.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: in.URI})
			return text("touched " + in.URI), nil
		})

	s.AddResource(&sdk.Resource{URI: "fake://readme", Name: "readme", MIMEType: "text/plain"},
		func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "read me"}}}, nil
		})
	s.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: "fake://items/{id}", Name: "item"},
		func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "item " + strings.TrimPrefix(req.Params.URI, "fake://items/")}}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "greet", Description: "Greets someone.", Arguments: []*sdk.PromptArgument{{Name: "name", Required: true}}},
		func(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			if msg := req.Params.Arguments["log"]; msg != "" {
				req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "info", Logger: "fake", Data: msg})
			}
			return &sdk.GetPromptResult{Description: "a greeting", Messages: []*sdk.PromptMessage{
				{Role: "user", Content: &sdk.TextContent{Text: "Hello, " + req.Params.Arguments["name"] + "!"}}}}, nil
		})
}

// richOptions are the rich server's options: completion and subscriptions.
func richOptions(opts *sdk.ServerOptions) {
	opts.CompletionHandler = func(ctx context.Context, req *sdk.CompleteRequest) (*sdk.CompleteResult, error) {
		var vals []string
		for _, v := range []string{"alice", "albert", "bob"} {
			if strings.HasPrefix(v, req.Params.Argument.Value) {
				vals = append(vals, v)
			}
		}
		return &sdk.CompleteResult{Completion: sdk.CompletionResultDetails{Values: vals, Total: len(vals)}}, nil
	}
	opts.SubscribeHandler = func(context.Context, *sdk.SubscribeRequest) error { return nil }
	opts.UnsubscribeHandler = func(context.Context, *sdk.UnsubscribeRequest) error { return nil }
}

func rawSchema(s string) map[string]any {
	var m map[string]any
	if err := jsonUnmarshal([]byte(s), &m); err != nil {
		panic(err)
	}
	return m
}

func unmarshalArgs(req *sdk.CallToolRequest, v any) error {
	if len(req.Params.Arguments) == 0 {
		return nil
	}
	if err := jsonUnmarshal(req.Params.Arguments, v); err != nil {
		return errors.New("bad arguments: " + err.Error())
	}
	return nil
}

func errorText(s string) *sdk.CallToolResult {
	r := text(s)
	r.IsError = true
	return r
}

func noteCancel(tool string) { note("cancelled " + tool) }

// note appends a line to CancelFileEnv's file, if one is named.
func note(line string) {
	path := os.Getenv(CancelFileEnv)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}
