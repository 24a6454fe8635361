package control

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/mcptray/mcptray/app/inbox"
)

// inboxRoutes adds the inbox to the control API:
//
//	GET  /v1/inbox                 {"requests": [inbox.Request…]} — never a value
//	POST /v1/inbox/{id}            body Answer; 400 {"error", "field"} for an
//	                               invalid answer (the request stays open),
//	                               404 when it is not open
//	GET  /v1/inbox/watch           inbox.Events, one JSON object per line, as
//	                               they happen (first the open requests)
//	POST /v1/inputs/{id}/forget    forget the value of ${input:ID}
//
// Answering and forgetting are the person's alone: 403 to a server's
// process (peer.go). Such a process reads, and watches, its own server's
// requests only (none when it names no server).
func (h *Handler) inboxRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/inbox", func(w http.ResponseWriter, r *http.Request) {
		reqs := h.b.Inbox()
		if server, all := h.inboxViewer(r); !all {
			mine := []inbox.Request{}
			for _, req := range reqs {
				if server != "" && req.Server == server {
					mine = append(mine, req)
				}
			}
			reqs = mine
		}
		writeJSON(w, http.StatusOK, InboxList{Requests: reqs})
	})
	mux.HandleFunc("GET /v1/inbox/watch", h.serveInboxWatch)
	mux.HandleFunc("POST /v1/inbox/{id}", h.personOnly("answer the inbox", func(w http.ResponseWriter, r *http.Request) {
		var a inbox.Answer
		dec := json.NewDecoder(io.LimitReader(r.Body, 1<<20))
		dec.UseNumber()
		if err := dec.Decode(&a); err != nil {
			// The decoder's message may quote the body: say only where.
			writeJSON(w, http.StatusBadRequest, apiError{Error: "the answer is not a JSON object {\"action\", \"content\"}"})
			return
		}
		err := h.b.Answer(r.PathValue("id"), a)
		var inv *inbox.InvalidAnswerError
		switch {
		case err == nil:
			writeJSON(w, http.StatusOK, struct{}{})
		case errors.As(err, &inv):
			writeJSON(w, http.StatusBadRequest, invalidAnswerBody{Error: inv.Error(), Field: inv.Field, Reason: inv.Reason})
		case errors.Is(err, inbox.ErrRequestClosed):
			writeJSON(w, http.StatusNotFound, apiError{Error: err.Error()})
		default:
			writeJSON(w, http.StatusInternalServerError, apiError{Error: err.Error()})
		}
	}))
	mux.HandleFunc("POST /v1/inputs/{id}/forget", h.personOnly("forget an input", func(w http.ResponseWriter, r *http.Request) {
		switch err := h.b.ForgetInput(r.PathValue("id")); {
		case err == nil:
			writeJSON(w, http.StatusOK, struct{}{})
		case errors.Is(err, inbox.ErrNoInputValue):
			writeJSON(w, http.StatusNotFound, apiError{Error: err.Error()})
		default:
			writeJSON(w, http.StatusInternalServerError, apiError{Error: err.Error()})
		}
	}))
}

// InboxList is what GET /v1/inbox and `mcptray inbox --json` print.
type InboxList struct {
	Requests []inbox.Request `json:"requests"`
}

// invalidAnswerBody is a 400 reply to an invalid answer.
type invalidAnswerBody struct {
	Error  string `json:"error"`
	Field  string `json:"field,omitempty"`
	Reason string `json:"reason"`
}

// serveInboxWatch streams inbox events until the client goes away.
func (h *Handler) serveInboxWatch(w http.ResponseWriter, r *http.Request) {
	server, all := h.inboxViewer(r)
	events, cancel := h.b.SubscribeInbox()
	defer cancel()
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	rc.Flush()
	enc := json.NewEncoder(w)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			if !all && (server == "" || ev.Request.Server != server) {
				continue
			}
			if enc.Encode(ev) != nil || rc.Flush() != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}
