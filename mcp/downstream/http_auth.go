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
// as the SDK does). During the start it does nothing of its own: the
// start fails with the handler's error, for the caller to handle.
type askingHandler struct {
	auth.OAuthHandler
	ask   func(ctx context.Context, err error) bool
	ready atomic.Bool // set once the session is up
}

func (h *askingHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	err := h.OAuthHandler.Authorize(ctx, req, resp)
	if err == nil || !h.ready.Load() || ctx.Err() != nil {
		return err
	}
	if h.ask(ctx, err) {
		return nil
	}
	return err
}
