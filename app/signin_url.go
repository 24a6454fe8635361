package app

import (
	"context"
	"fmt"
	"net/url"

	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/store"
)

// browserOrInbox is a sign-in's open: the browser (Options.OpenURL), or,
// when none opens (no desktop, a $BROWSER that fails), a request in the
// inbox that shows the address for the person to copy into a browser on
// this computer. That request lasts while ctx does (the sign-in); its
// decline stops the sign-in.
func (c *Core) browserOrInbox(ctx context.Context, s *server, stop context.CancelFunc) func(string) error {
	return func(u string) error {
		err := c.opts.OpenURL(u)
		if err == nil {
			return nil
		}
		s.log.Write(logLifecycle, "opening the browser: "+err.Error()+"; the inbox shows the sign-in's address")
		host := ""
		if p, perr := url.Parse(u); perr == nil {
			host = p.Host
		}
		req := inbox.Request{Kind: inbox.KindSignIn, Server: s.name, Source: inbox.SourceMcptray, Mode: "url", URL: u, Host: host,
			Message: fmt.Sprintf("mcptray could not open a browser. To sign in to %s, open this address in a browser on this computer:", s.name),
			SignIn:  &inbox.SignIn{IssuerHost: host}}
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			r := c.inbox.Ask(ctx, req, "", c.inboxTimeout())
			if r.Outcome == store.OutcomeDecline || r.Outcome == store.OutcomeCancel && r.By != inbox.ClosedByServer {
				stop()
			}
		}()
		return nil
	}
}
