package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/mcp"
)

// Inbox returns the requests waiting for the person, oldest first.
func (c *Core) Inbox() []inbox.Request { return c.inbox.List() }

// SubscribeInbox returns a channel of inbox events and a cancel func. The
// channel first gets an inbox.Added event for every request already
// waiting, then every change as it happens; no event is dropped, and the
// channel is closed after cancel.
func (c *Core) SubscribeInbox() (<-chan inbox.Event, func()) { return c.inbox.Subscribe() }

// Answer answers the request id. A form's values are checked first: a bad
// one returns an *inbox.InvalidAnswerError (naming the field, never the value)
// and the request stays open. A request that is no longer open returns an
// error wrapping inbox.ErrRequestClosed. Accepting a URL request opens the URL
// in the browser.
func (c *Core) Answer(id string, a inbox.Answer) error { return c.inbox.Answer(id, a) }

// inboxTimeout is the current inbox deadline (x-mcptray.inboxTimeout).
func (c *Core) inboxTimeout() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.settings.InboxTimeout > 0 {
		return c.settings.InboxTimeout
	}
	return config.DefaultInboxTimeout
}

// inputTimeout is the current x-mcptray.inputTimeout for servers started
// from now on (0: downstream's default).
func (c *Core) inputTimeout() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.settings.InputTimeout
}

// elicit is the gateway's Elicit: the request waits in the inbox until the
// person answers, the deadline passes, or the server gives up (ctx). A
// request over the inbox's limits is answered cancel at once; the
// server's log says why.
func (c *Core) elicit(ctx context.Context, info mcp.ElicitInfo) (*mcp.ElicitResult, error) {
	p := info.Request
	req := inbox.Request{Kind: inbox.KindElicitation, Server: info.Server, Tool: info.Tool, Client: info.Client, Source: inbox.SourceServer, Message: p.Message, Mode: p.Mode}
	if info.Notice {
		req.Source = inbox.SourceToolError
	}
	if len(p.Message) > inbox.MaxMessage {
		return c.refuseRequest(info.Server, fmt.Sprintf("its message is %d bytes, over the %d-byte limit", len(p.Message), inbox.MaxMessage))
	}
	if p.Mode == "url" {
		req.URL, req.Host = p.URL, urlHost(p.URL)
	} else {
		schema := info.Schema
		if len(schema) == 0 && p.RequestedSchema != nil {
			schema, _ = json.Marshal(p.RequestedSchema)
		}
		if len(schema) > inbox.MaxSchema {
			return c.refuseRequest(info.Server, fmt.Sprintf("its form is %d bytes of JSON, over the %d-byte limit", len(schema), inbox.MaxSchema))
		}
		fields, err := inbox.FormFields(schema, p.RequestedSchema, info.SecretFields)
		if err != nil {
			c.log.Warn("inbox: the server's form cannot be shown; cancelled", "server", info.Server, "err", err)
			return &mcp.ElicitResult{Action: inbox.ActionCancel}, nil
		}
		if len(fields) > inbox.MaxFields {
			return c.refuseRequest(info.Server, fmt.Sprintf("its form has %d fields, over the limit of %d", len(fields), inbox.MaxFields))
		}
		req.Fields, req.Confirm = fields, len(fields) == 0
		if req.Confirm {
			req.AcceptLabel = acceptLabel(p.Meta[mcp.AcceptLabelMeta])
		}
	}
	r := c.inbox.Ask(ctx, req, p.ElicitationID, c.inboxTimeout())
	return r.Reply, nil
}

// refuseRequest answers cancel to a server's request over the inbox's
// limits, saying why in mcptray's log and the server's.
func (c *Core) refuseRequest(server, why string) (*mcp.ElicitResult, error) {
	msg := "request refused (answered cancel): " + why
	c.log.Warn("inbox: "+msg, "server", server)
	c.serverLog(server, logInbox, msg)
	return &mcp.ElicitResult{Action: inbox.ActionCancel}, nil
}

// serverLog writes a line to the log of the server name, if it is
// configured.
func (c *Core) serverLog(name, kind, text string) {
	c.mu.Lock()
	s := c.servers[name]
	c.mu.Unlock()
	if s != nil {
		s.log.Write(kind, text)
	}
}

// inboxRefused is the inbox's refused: it counts the request in the
// server's status (inboxRefused) and logs the first of a burst.
func (c *Core) inboxRefused(server string, first bool) {
	c.mu.Lock()
	s := c.servers[server]
	if s != nil {
		s.status.InboxRefused++
	}
	c.mu.Unlock()
	if !first {
		return
	}
	msg := fmt.Sprintf("inbox full: %d requests of this server wait; new ones are answered cancel until one closes", inbox.MaxPendingPerServer)
	c.log.Warn(msg, "server", server)
	if s != nil {
		s.log.Write(logInbox, msg)
	}
	c.broadcast()
}

// inboxRelieved is the inbox's relieved: it logs how many requests a
// burst refused.
func (c *Core) inboxRelieved(server string, refused int) {
	msg := fmt.Sprintf("inbox no longer full: refused %d requests while it was", refused)
	c.log.Warn(msg, "server", server)
	c.serverLog(server, logInbox, msg)
	c.broadcast()
}

// elicitComplete is the gateway's ElicitComplete.
func (c *Core) elicitComplete(server, elicitationID string) { c.inbox.Complete(server, elicitationID) }

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

// maxAcceptLabel is the longest accept-button label a server may ask for.
const maxAcceptLabel = 24

// acceptLabel is the label a server asked its accept button to carry
// (_meta mcptray/acceptLabel), or "" when v is not a short one-line
// string of printable characters.
func acceptLabel(v any) string {
	s, ok := v.(string)
	s = strings.TrimSpace(s)
	if !ok || s == "" || utf8.RuneCountInString(s) > maxAcceptLabel {
		return ""
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return ""
		}
	}
	return s
}
