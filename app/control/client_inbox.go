package control

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/inbox"
)

// Inbox lists the instance's open inbox requests.
func (cl *Client) Inbox(ctx context.Context) ([]inbox.Request, error) {
	var l InboxList
	if err := cl.do(ctx, http.MethodGet, "/v1/inbox", &l); err != nil {
		return nil, err
	}
	return l.Requests, nil
}

// Answer answers an inbox request. An invalid answer returns an
// *inbox.InvalidAnswerError (the request stays open); one that is not open an
// error wrapping inbox.ErrRequestClosed.
func (cl *Client) Answer(ctx context.Context, id string, a inbox.Answer) error {
	body, err := json.Marshal(a)
	if err != nil {
		return errors.New("encoding the answer: a value is not JSON")
	}
	r, err := cl.request(ctx, http.MethodPost, "/v1/inbox/"+url.PathEscape(id), body)
	if err != nil {
		return err
	}
	switch r.status {
	case http.StatusOK:
		return nil
	case http.StatusBadRequest:
		var b invalidAnswerBody
		if json.Unmarshal(r.body, &b) == nil && b.Reason != "" {
			return &inbox.InvalidAnswerError{Field: b.Field, Reason: b.Reason}
		}
	case http.StatusNotFound:
		return r.err(inbox.ErrRequestClosed)
	}
	return r.err(nil)
}

// WatchInbox streams inbox events: first an inbox.Added for every open
// request, then changes as they happen. The channel closes when ctx ends
// or the instance goes away.
func (cl *Client) WatchInbox(ctx context.Context) (<-chan inbox.Event, error) {
	return watch[inbox.Event](ctx, cl, http.MethodGet, "/v1/inbox/watch", "watching the inbox")
}

// ForgetInput asks the instance to forget the value of ${input:ID}.
func (cl *Client) ForgetInput(ctx context.Context, id string) error {
	err := cl.do(ctx, http.MethodPost, "/v1/inputs/"+url.PathEscape(id)+"/forget", nil)
	var re remoteError
	if errors.As(err, &re) && errors.Is(err, config.ErrNoServer) {
		return remoteError{msg: re.msg, is: inbox.ErrNoInputValue} // do maps every 404 to ErrNoServer
	}
	return err
}
