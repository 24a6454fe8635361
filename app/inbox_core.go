package app

import (
	"context"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/idna"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/mcp"
)

// Inbox returns the requests waiting for the person, oldest first.
func (c *Core) Inbox() []InboxRequest { return c.inbox.list() }

// SubscribeInbox returns a channel of inbox events and a cancel func. The
// channel first gets an InboxAdded event for every request already
// waiting, then every change as it happens; no event is dropped, and the
// channel is closed after cancel.
func (c *Core) SubscribeInbox() (<-chan InboxEvent, func()) { return c.inbox.subscribe() }

// Answer answers the request id. A form's values are checked first: a bad
// one returns an *InvalidAnswerError (naming the field, never the value)
// and the request stays open. A request that is no longer open returns an
// error wrapping ErrRequestClosed. Accepting a URL request opens the URL
// in the browser.
func (c *Core) Answer(id string, a Answer) error { return c.inbox.answer(id, a) }

// inboxTimeout is the current inbox deadline (x-mcptray.inboxTimeout).
func (c *Core) inboxTimeout() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.settings.InboxTimeout > 0 {
		return c.settings.InboxTimeout
	}
	return config.DefaultInboxTimeout
}

// elicit is the gateway's Elicit: the request waits in the inbox until the
// person answers, the deadline passes, or the server gives up (ctx).
func (c *Core) elicit(ctx context.Context, info mcp.ElicitInfo) (*mcp.ElicitResult, error) {
	p := info.Request
	req := InboxRequest{Server: info.Server, Tool: info.Tool, Client: info.Client, Source: SourceServer, Message: p.Message, Mode: p.Mode}
	if info.Notice {
		req.Source = SourceToolError
	}
	if p.Mode == "url" {
		req.URL, req.Host = p.URL, urlHost(p.URL)
	} else {
		fields, err := formFields(info.Schema, p.RequestedSchema, info.SecretFields)
		if err != nil {
			c.log.Warn("inbox: the server's form cannot be shown; cancelled", "server", info.Server, "err", err)
			return &mcp.ElicitResult{Action: ActionCancel}, nil
		}
		req.Fields, req.Confirm = fields, len(fields) == 0
	}
	r := c.inbox.ask(ctx, req, p.ElicitationID, c.inboxTimeout())
	return r.res, nil
}

// elicitComplete is the gateway's ElicitComplete.
func (c *Core) elicitComplete(server, elicitationID string) { c.inbox.complete(server, elicitationID) }

// urlHost is the host (and port) a URL points at, as a person should see
// it: the Punycode form, so look-alike letters show.
func urlHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	if a, err := idna.Lookup.ToASCII(host); err == nil {
		host = a
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port := u.Port(); port != "" {
		host += ":" + port
	}
	return host
}
