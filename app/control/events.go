package control

import (
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
func (h *Handler) eventRoutes(mux *http.ServeMux) {
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
		page, err := h.b.EventPage(f)
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
		n, err := h.b.AckEvents(req)
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
		calls, err := h.b.History(int(limit))
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
