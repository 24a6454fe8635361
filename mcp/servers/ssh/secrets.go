package ssh

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// secretKind is what a secret is for.
type secretKind string

const (
	loginPassword secretKind = "login password"
	keyPassphrase secretKind = "key passphrase"
	sudoPassword  secretKind = "sudo password"
)

// secrets is the RAM-only cache of typed secrets, per alias and kind. An
// entry lives for the TTL in force when it was typed; it is dropped early
// when it turns out wrong or its alias changes. Values are never logged and
// never leave this process except to the SSH server they are for.
type secrets struct {
	now func() time.Time

	mu sync.Mutex // guards m
	m  map[secretID]secret
}

type secretID struct {
	alias string
	kind  secretKind
}

type secret struct {
	value   []byte
	expires time.Time
}

func newSecrets(now func() time.Time) *secrets {
	return &secrets{now: now, m: map[secretID]secret{}}
}

func (c *secrets) get(alias string, kind secretKind) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := secretID{alias, kind}
	s, ok := c.m[id]
	if !ok {
		return "", false
	}
	if !c.now().Before(s.expires) {
		wipe(s.value)
		delete(c.m, id)
		return "", false
	}
	return string(s.value), true
}

func (c *secrets) put(alias string, kind secretKind, value string, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	id := secretID{alias, kind}
	if old, ok := c.m[id]; ok {
		wipe(old.value)
	}
	c.m[id] = secret{value: []byte(value), expires: c.now().Add(ttl)}
}

// drop forgets one secret (kind "") or all of an alias's.
func (c *secrets) drop(alias string, kind secretKind) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, s := range c.m {
		if id.alias == alias && (kind == "" || id.kind == kind) {
			wipe(s.value)
			delete(c.m, id)
		}
	}
}

func (c *secrets) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, s := range c.m {
		wipe(s.value)
		delete(c.m, id)
	}
}

func wipe(b []byte) {
	for i := range b {
		b[i] = 0
	}
}

// asker asks the person for one secret; prompt says for what.
type asker func(ctx context.Context, p prompt) (string, error)

// prompt describes a secret to ask for.
type prompt struct {
	alias Alias
	kind  secretKind
	what  string // what it is for, e.g. "to run a command as root"
	key   string // the key file, for a passphrase
}

// message is the elicitation's text: which alias, which secret, what for.
func (p prompt) message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "SSH alias %q (%s): ", p.alias.Name, p.alias.Dest())
	switch p.kind {
	case loginPassword:
		fmt.Fprintf(&b, "the login password of %s, %s.", p.alias.User, p.what)
	case keyPassphrase:
		fmt.Fprintf(&b, "the passphrase of the key %s, %s.", p.key, p.what)
	case sudoPassword:
		fmt.Fprintf(&b, "the sudo password of %s, %s.", p.alias.User, p.what)
	}
	return b.String()
}

// field is the name of the requested schema's single field.
func (p prompt) field() string {
	if p.kind == keyPassphrase {
		return "passphrase"
	}
	return "password"
}

// errNotGiven is wrapped by the error for a declined or cancelled prompt.
var errNotGiven = errors.New("not given")

// elicitParams is the form that asks for the secret: one masked field
// (writeOnly), so mcptray routes it to its inbox, never to the assistant.
func (p prompt) elicitParams() *sdk.ElicitParams {
	title := "Password"
	if p.kind == keyPassphrase {
		title = "Passphrase"
	}
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			p.field(): map[string]any{
				"type":        "string",
				"title":       title,
				"description": fmt.Sprintf("The %s for SSH alias %s", p.kind, p.alias.Name),
				"writeOnly":   true,
			},
		},
		"required": []string{p.field()},
	}
	return &sdk.ElicitParams{Mode: "form", Message: p.message(), RequestedSchema: schema}
}

// answer reads the person's answer to p.
func (p prompt) answer(res *sdk.ElicitResult) (string, error) {
	switch res.Action {
	case "accept":
	case "decline":
		return "", fmt.Errorf("the %s for alias %s was declined: %w", p.kind, p.alias.Name, errNotGiven)
	default:
		return "", fmt.Errorf("the %s for alias %s was not given (the request was cancelled): %w", p.kind, p.alias.Name, errNotGiven)
	}
	v, _ := res.Content[p.field()].(string)
	if v == "" {
		return "", fmt.Errorf("the %s for alias %s was empty: %w", p.kind, p.alias.Name, errNotGiven)
	}
	return v, nil
}

// inputID names the prompt in a multi-round-trip input request.
func (p prompt) inputID() string {
	return strings.ReplaceAll(string(p.kind), " ", "-") + "/" + p.alias.Name
}

// asker returns how a tool call asks for secrets. A client on protocol
// 2026-07-28 or later gets an input-required result (the call is retried
// with the answer: needInput carries the request up to the tool handler);
// an older one — mcptray's gateway pins 2025-11-25 — gets
// elicitation/create during the call.
func (s *Server) asker(req *sdk.CallToolRequest) asker {
	if req == nil || req.Session == nil {
		return nil
	}
	ss := req.Session
	if ip := ss.InitializeParams(); ip == nil || ip.ProtocolVersion < multiRoundTripVersion {
		return func(ctx context.Context, p prompt) (string, error) {
			res, err := ss.Elicit(ctx, p.elicitParams())
			if err != nil {
				return "", fmt.Errorf("asking for the %s of alias %s: %w", p.kind, p.alias.Name, err)
			}
			return p.answer(res)
		}
	}
	var responses sdk.InputResponseMap
	if req.Params != nil {
		responses = req.Params.InputResponses
	}
	return func(ctx context.Context, p prompt) (string, error) {
		if r, ok := responses[p.inputID()].(*sdk.ElicitResult); ok {
			return p.answer(r)
		}
		return "", &needInput{id: p.inputID(), params: p.elicitParams()}
	}
}

// multiRoundTripVersion is the first protocol version whose clients take
// input-required results.
const multiRoundTripVersion = "2026-07-28"

// needInput stops a tool call that needs an answer the call does not carry
// yet; withInput turns it into an input-required result.
type needInput struct {
	id     string
	params *sdk.ElicitParams
}

func (e *needInput) Error() string { return "waiting for an answer (" + e.id + ")" }

// withInput wraps a tool handler: a needInput error becomes an
// input-required result asking for it.
func withInput[In, Out any](h sdk.ToolHandlerFor[In, Out]) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
		res, out, err := h(ctx, req, in)
		var ni *needInput
		if errors.As(err, &ni) {
			var zero Out
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{ni.id: ni.params}}, zero, nil
		}
		return res, out, err
	}
}

// secret returns the cached secret or asks for it (and caches it).
func (s *Server) secret(ctx context.Context, ask asker, p prompt) (string, error) {
	if v, ok := s.secrets.get(p.alias.Name, p.kind); ok {
		return v, nil
	}
	if ask == nil {
		return "", fmt.Errorf("the %s for alias %s is needed, and nobody can be asked here", p.kind, p.alias.Name)
	}
	v, err := ask(ctx, p)
	if err != nil {
		return "", err
	}
	s.secrets.put(p.alias.Name, p.kind, v, s.settings().SecretTTL)
	return v, nil
}
