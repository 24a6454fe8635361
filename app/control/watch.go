package control

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcptray/mcptray/app/events"
)

// The watches: streams of JSON lines, one value per line, as things
// change, for a window in another process (app/remote) that shows what
// the instance does:
//
//	GET /v1/status/watch    Status, first the current one, then after each
//	                        change (newest wins: intermediate ones may be
//	                        skipped)
//	GET /v1/events/watch    events.Change, as events arrive or are
//	                        acknowledged
//	GET /v1/settings        Settings (one reply, not a stream)
//
// Each is open to a server's process, as GET /v1/status and GET
// /v1/events are: they show what those do, and decide nothing.
func (h *Handler) watchRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/status/watch", func(w http.ResponseWriter, r *http.Request) {
		ch, cancel := h.b.Subscribe()
		defer cancel()
		serveStream(w, r, ch)
	})
	mux.HandleFunc("GET /v1/events/watch", func(w http.ResponseWriter, r *http.Request) {
		ch, cancel := h.b.SubscribeEvents()
		defer cancel()
		serveStream(w, r, ch)
	})
	mux.HandleFunc("GET /v1/settings", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, Settings{Tools: h.b.ToolsMode()})
	})
}

// Settings are the instance's settings of its last good config that a
// window shows (GET /v1/settings).
type Settings struct {
	// Tools is the default tool-list mode: live, stable or dynamic.
	Tools string `json:"tools"`
}

// serveStream writes each value ch delivers as one JSON line, flushed at
// once, until ch closes or the client goes away.
func serveStream[T any](w http.ResponseWriter, r *http.Request, ch <-chan T) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	rc.Flush()
	enc := json.NewEncoder(w)
	for {
		select {
		case v, ok := <-ch:
			if !ok {
				return
			}
			if enc.Encode(v) != nil || rc.Flush() != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

// WatchStatus streams the instance's status: first the current one, then
// the newest after each change. The channel closes when ctx ends or the
// instance goes away.
func (cl *Client) WatchStatus(ctx context.Context) (<-chan Status, error) {
	return watch[Status](ctx, cl, http.MethodGet, "/v1/status/watch", "watching the status")
}

// WatchEvents streams the instance's event changes (events.Hub.Subscribe)
// from now on. The channel closes when ctx ends or the instance goes away.
func (cl *Client) WatchEvents(ctx context.Context) (<-chan events.Change, error) {
	return watch[events.Change](ctx, cl, http.MethodGet, "/v1/events/watch", "watching the events")
}

// Settings reads the instance's settings (its last good config's).
func (cl *Client) Settings(ctx context.Context) (Settings, error) {
	var s Settings
	err := cl.do(ctx, http.MethodGet, "/v1/settings", &s)
	return s, err
}

// watch opens a stream of JSON lines (method path) and returns its values
// in a channel, which one goroutine fills and closes when the stream ends
// or ctx does. A line that does not decode is skipped. what says what the
// request does, for its errors.
func watch[T any](ctx context.Context, cl *Client, method, path, what string) (<-chan T, error) {
	req, err := http.NewRequestWithContext(ctx, method, "http://mcptray"+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := cl.http.Do(req)
	if err != nil {
		return nil, talkError(err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		r := reply{status: resp.StatusCode, text: resp.Status}
		r.body, _ = readSome(resp)
		return nil, fmt.Errorf("%s: %w", what, r.err(nil))
	}
	ch := make(chan T)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			var v T
			if json.Unmarshal(sc.Bytes(), &v) != nil {
				continue
			}
			select {
			case ch <- v:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch, nil
}
