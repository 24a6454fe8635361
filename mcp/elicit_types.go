package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ElicitResult is the answer to an elicitation: Action "accept", "decline"
// or "cancel", and Content (accept only) keyed by field name.
type ElicitResult = sdk.ElicitResult

// codeURLElicitationRequired is the JSON-RPC error code of a request a
// server refuses until URL elicitations are completed (2025-11-25).
const codeURLElicitationRequired = sdk.CodeURLElicitationRequired

// urlRequired looks at a tools/call error reply. A URLElicitationRequired
// error (-32042) lists URL elicitations the person must complete before a
// retry can work. The error itself still goes to the assistant, unchanged.
// When the assistant can take URL elicitations (and elicitation is "auto"),
// that is all: the server's completion notifications are forwarded to it.
// Otherwise each elicitation goes to the inbox as a notice (nobody waits
// for its answer), so the person sees the URL and can open it.
func (g *Gateway) urlRequired(c *call, errObj []byte) {
	code := wire.Field(errObj, "code")
	if !code.OK() {
		return
	}
	if n, err := strconv.Atoi(string(code.Of(errObj))); err != nil || n != codeURLElicitationRequired {
		return
	}
	var e struct {
		Data struct {
			Elicitations []*sdk.ElicitParams `json:"elicitations"`
		} `json:"data"`
	}
	if json.Unmarshal(errObj, &e) != nil {
		return
	}
	for _, p := range e.Data.Elicitations {
		if p == nil || p.URL == "" {
			continue
		}
		p.Mode = "url"
		reason := "elicitation is local"
		if !g.elicitLocal.Load() {
			reason = c.up.cannotElicit("url")
		}
		if reason == "" {
			if p.ElicitationID != "" {
				g.mu.Lock()
				g.urlElicits[p.ElicitationID] = c.up
				g.mu.Unlock()
			}
			continue
		}
		if g.opts.Elicit == nil {
			continue
		}
		info := ElicitInfo{Server: c.server, Tool: c.tool, Client: c.up.clientName(), Request: p, Notice: true,
			Reason: reason + " (URL elicitation required by a tool call)"}
		g.log.Info("URL elicitation goes to the inbox", "server", c.server, "tool", c.tool, "reason", info.Reason)
		go func() {
			ctx, stop := c.sess.CallContext(context.Background())
			defer stop()
			g.opts.Elicit(ctx, info)
		}()
	}
}

// urlRequiredErr is urlRequired for an error from the SDK's client (HTTP
// servers).
func (g *Gateway) urlRequiredErr(c *call, err error) {
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code == codeURLElicitationRequired {
		if b, merr := json.Marshal(we); merr == nil {
			g.urlRequired(c, c.sess.RedactJSON(b))
		}
	}
}

// InboxOnlyMeta is the _meta key (value true) with which a server marks an
// elicitation as one for the person: it goes to mcptray's inbox, never to
// an assistant, whatever the elicitation setting. mcptray's built-in
// servers mark their Google sign-ins and Gmail's send confirmations so
// (google.InboxMeta is the same key).
const InboxOnlyMeta = "mcptray/inbox"

// AcceptLabelMeta is the _meta key whose short text labels the inbox's
// accept button of a yes/no request ("Send" for Gmail's confirmation;
// google.AcceptLabelMeta is the same key). The inbox then offers that
// button and Cancel, which declines.
const AcceptLabelMeta = "mcptray/acceptLabel"
