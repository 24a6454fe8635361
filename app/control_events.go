package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/mcptray/mcptray/app/events"
)

// eventRoutes adds the events and history endpoints to the control API:
//
//	GET  /v1/events?all=1&server=&since=&limit=&newest=1
//	                                             {"events": [...], "notShown": N}, oldest first
//	POST /v1/events/ack {"ids": [...]} | {"all": true, "server": ""}   {"acked": N}
//	GET  /v1/history?limit=                      {"calls": [...]}, newest first
func (c *Core) eventRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/events", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		f := events.Filter{Server: q.Get("server")}
		var err error
		if f.All, err = boolParam(q.Get("all"), "all"); err == nil {
			if f.SinceID, err = intParam(q.Get("since"), "since", "an event id"); err == nil {
				var limit int64
				if limit, err = intParam(q.Get("limit"), "limit", "a number of events"); err == nil {
					f.Limit = int(min(limit, MaxEventsPage))
					f.Newest, err = boolParam(q.Get("newest"), "newest")
				}
			}
		}
		if err != nil {
			writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
			return
		}
		page, err := c.EventPage(f)
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, apiError{Error: err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, page)
	})
	mux.HandleFunc("POST /v1/events/ack", func(w http.ResponseWriter, r *http.Request) {
		var req events.AckRequest
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err == nil {
			err = json.Unmarshal(body, &req)
		}
		if err != nil {
			writeJSON(w, http.StatusBadRequest, apiError{Error: "reading the request: " + err.Error()})
			return
		}
		if err := req.Check(); err != nil {
			writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
			return
		}
		n, err := c.AckEvents(req)
		switch {
		case errors.Is(err, events.ErrNoEvent):
			writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
		case err != nil:
			writeJSON(w, http.StatusInternalServerError, apiError{Error: err.Error()})
		default:
			writeJSON(w, http.StatusOK, ackReply{Acked: n})
		}
	})
	mux.HandleFunc("GET /v1/history", func(w http.ResponseWriter, r *http.Request) {
		limit, err := intParam(r.URL.Query().Get("limit"), "limit", "a number of calls")
		if err != nil {
			writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
			return
		}
		calls, err := c.History(int(limit))
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, apiError{Error: err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, historyReply{Calls: calls})
	})
}

// MaxEventsPage is the most events one request for events gets: the
// control API never reads more at once, whatever limit it is asked for.
const MaxEventsPage = 10000

// EventPage is one page of events, oldest first, and how many more the
// filter selects (`mcptray events --json`, DESIGN.md §12).
type EventPage struct {
	Events []events.Event `json:"events"`
	// NotShown is how many events the filter selects besides these: older
	// ones when the page has the newest, later ones when it has the
	// oldest. Counted when the page is read; events keep arriving.
	NotShown int `json:"notShown"`
}

// EventPage returns a page of the events f selects: the oldest f.Limit,
// or with f.Newest the newest f.Limit, and at most MaxEventsPage (also
// when f.Limit <= 0).
func (c *Core) EventPage(f events.Filter) (EventPage, error) {
	if f.Limit <= 0 || f.Limit > MaxEventsPage {
		f.Limit = MaxEventsPage
	}
	ctx := context.Background()
	want := f.Limit
	f.Limit++ // one more says whether there are more
	evs, err := c.store.Events(ctx, f)
	if err != nil {
		return EventPage{}, err
	}
	if len(evs) <= want {
		return EventPage{Events: events.FromStore(evs)}, nil
	}
	if f.Newest {
		evs = evs[1:] // the extra one is the oldest
	} else {
		evs = evs[:want]
	}
	n, err := c.store.CountEvents(ctx, f)
	if err != nil {
		return EventPage{}, err
	}
	return EventPage{Events: events.FromStore(evs), NotShown: max(n-want, 1)}, nil
}

type ackReply struct {
	Acked int `json:"acked"`
}

// historyReply is `mcptray history --json`.
type historyReply struct {
	Calls []ToolCall `json:"calls"`
}

func boolParam(v, name string) (bool, error) {
	switch v {
	case "", "0", "false":
		return false, nil
	case "1", "true":
		return true, nil
	}
	return false, fmt.Errorf("%s must be true or false, got %q", name, v)
}

func intParam(v, name, what string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s must be %s (a whole number, 0 or more), got %q", name, what, v)
	}
	return n, nil
}
