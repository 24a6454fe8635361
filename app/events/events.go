package events

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/mcptray/mcptray/store"
)

// URI is the gateway resource with the unacknowledged events; its
// subscribers get notifications/resources/updated when events arrive or
// are acknowledged.
const URI = "mcptray://events"

// Event is one event as the CLI, the control API, the gateway's tools and
// the UI show it (`mcptray events --json`).
type Event struct {
	ID       int64           `json:"id"`
	Server   string          `json:"server"`
	Method   string          `json:"method"`
	Params   json.RawMessage `json:"params"` // the JSON object the server sent ({} if none)
	Received time.Time       `json:"received"`
	Acked    *time.Time      `json:"acked"` // nil until acknowledged
}

// Summary is what a notification shows of the event: its title (params
// title, subject or summary, else the method) and body (params body,
// snippet, from or description), trimmed.
func (e Event) Summary() (title, body string) { return eventText(e.Method, e.Params) }

// Filter selects events: by default every unacknowledged one, oldest
// first. See store.EventFilter.
type Filter = store.EventFilter

// AckRequest says which events to acknowledge: IDs, or All (of Server, or
// of every server).
type AckRequest struct {
	IDs    []int64 `json:"ids,omitempty"`
	All    bool    `json:"all,omitempty"`
	Server string  `json:"server,omitempty"` // with All only
}

// Check says what is wrong with a request, in words for the person who
// made it.
func (r AckRequest) Check() error {
	switch {
	case len(r.IDs) > 0 && r.All:
		return errors.New("give event ids or all, not both")
	case len(r.IDs) > 0 && r.Server != "":
		return errors.New("a server narrows all only; give ids alone")
	case len(r.IDs) == 0 && !r.All:
		return errors.New("nothing to acknowledge: give event ids or all")
	}
	return nil
}

// ErrNoEvent is wrapped by Hub.Ack when an id names no event.
var ErrNoEvent = store.ErrNoEvent

// Change is what Hub.Subscribe delivers.
type Change struct {
	New []Event // events stored since the last change, oldest first
	// Acked is set when events were acknowledged (here, by the CLI or by
	// an assistant): re-read the list with Hub.Events.
	Acked bool
	// Missed is set when this subscriber fell behind and earlier changes
	// were dropped: re-read the list with Hub.Events.
	Missed bool
}

// FromStore is the events as the store holds them, as they are shown.
func FromStore(evs []store.Event) []Event {
	out := make([]Event, len(evs))
	for i, e := range evs {
		out[i] = Event{ID: e.ID, Server: e.Server, Method: e.Method, Params: e.Params, Received: e.Received}
		if !e.Acked.IsZero() {
			acked := e.Acked
			out[i].Acked = &acked
		}
	}
	return out
}
