package downstream

import (
	"context"
	"net/http"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// askingHandler is an HTTP server's OAuth handler (HTTPSpec.OAuth) with
// HTTPSpec.AskAuth behind it: once the session is ready, a request that
// the handler cannot authorize (a sign-in or more scopes needed) waits
// while AskAuth asks the person; their sign-in retries the request (once,
// as the SDK does). The SDK's requests and the raw fast path's (a task's
// tools/call) go through it alike. During the start it does nothing of
// its own: the start fails with the handler's error, for the caller to
// handle. After a sign-in AskAuth answered, the first answer that is not
// a 401 or 403 calls HTTPSpec.AuthOK: the new token worked.
type askingHandler struct {
	auth.OAuthHandler
	ask     func(ctx context.Context, err error) bool
	ok      func()      // HTTPSpec.AuthOK; nil: none
	ready   atomic.Bool // set once the session is up
	pending atomic.Bool // a sign-in AskAuth answered, no answer heard since
}

func (h *askingHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	err := h.OAuthHandler.Authorize(ctx, req, resp)
	if err == nil || !h.ready.Load() || ctx.Err() != nil {
		return err
	}
	if h.ask(ctx, err) {
		h.pending.Store(true)
		return nil
	}
	return err
}

// ObserveResponse passes the answers on to the handler, and calls ok
// after a sign-in once an answer is not a refusal.
func (h *askingHandler) ObserveResponse(req *http.Request, resp *http.Response) {
	if o := observerOf(h.OAuthHandler); o != nil {
		o.ObserveResponse(req, resp)
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return
	}
	if h.pending.CompareAndSwap(true, false) && h.ok != nil {
		h.ok()
	}
}
