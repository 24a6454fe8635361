package control

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/mcptray/mcptray/app/events"
)

// Events lists the instance's events: one page of at most MaxEventsPage
// (see EventPage).
func (cl *Client) Events(ctx context.Context, f events.Filter) ([]events.Event, error) {
	page, err := cl.EventPage(ctx, f)
	return page.Events, err
}

// EventPage reads one page of the instance's events (see events.Filter): at
// most f.Limit, at most MaxEventsPage.
func (cl *Client) EventPage(ctx context.Context, f events.Filter) (EventPage, error) {
	q := url.Values{}
	if f.All {
		q.Set("all", "1")
	}
	if f.Server != "" {
		q.Set("server", f.Server)
	}
	if f.SinceID > 0 {
		q.Set("since", strconv.FormatInt(f.SinceID, 10))
	}
	if f.Limit > 0 {
		q.Set("limit", strconv.Itoa(f.Limit))
	}
	if f.Newest {
		q.Set("newest", "1")
	}
	var page EventPage
	if err := cl.do(ctx, http.MethodGet, "/v1/events?"+q.Encode(), &page); err != nil {
		return EventPage{}, err
	}
	return page, nil
}

// AckEvents acknowledges events on the instance and returns how many were
// not already.
func (cl *Client) AckEvents(ctx context.Context, req events.AckRequest) (int, error) {
	var reply ackReply
	if err := cl.sendJSON(ctx, "/v1/events/ack", req, &reply); err != nil {
		return 0, err
	}
	return reply.Acked, nil
}

// History returns the instance's last tool calls, newest first (limit <=
// 0: the instance's default, app.DefaultHistory).
func (cl *Client) History(ctx context.Context, limit int) ([]ToolCall, error) {
	path := "/v1/history"
	if limit > 0 {
		path += "?limit=" + strconv.Itoa(limit)
	}
	var reply historyReply
	if err := cl.do(ctx, http.MethodGet, path, &reply); err != nil {
		return nil, err
	}
	return reply.Calls, nil
}

// sendJSON posts body as JSON and decodes the reply into out.
func (cl *Client) sendJSON(ctx context.Context, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	r, err := cl.request(ctx, http.MethodPost, path, b)
	if err != nil {
		return err
	}
	if r.status != http.StatusOK {
		return r.err(nil)
	}
	return json.Unmarshal(r.body, out)
}
