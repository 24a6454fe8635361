package events

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcptray/mcptray/mcp"
)

// Limits of the gateway's event tools.
const (
	defaultToolEvents = 100  // events mcptray__events returns unless asked
	maxToolEvents     = 1000 // the most it returns at once
)

// eventsList is what mcptray__events and mcptray://events return.
type eventsList struct {
	Events []Event `json:"events"`
	// More is set when more unacknowledged events follow: ask again with
	// since = the last id.
	More bool `json:"more"`
}

// Tools are the gateway's mcptray__events and mcptray__ack_events.
func (h *Hub) Tools() []mcp.BuiltinTool {
	return []mcp.BuiltinTool{{
		Name: "events",
		Description: "Events that the MCP servers pushed (a new email, a calendar event, a message, …) and nobody has acknowledged yet, oldest first. " +
			"Each has an id, the server, the method (e.g. event/new_email), params (what the server sent) and when it was received. " +
			"Acknowledge the ones you handled with mcptray__ack_events. When more is true, call again with since = the last id.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"server":{"type":"string","description":"Only this server's events."},` +
			`"since":{"type":"integer","minimum":0,"description":"Only events with a greater id."},` +
			`"limit":{"type":"integer","minimum":1,"maximum":1000,"description":"At most this many (default 100)."}}}`),
		Call: func(ctx context.Context, args json.RawMessage) (any, string, error) {
			var in struct {
				Server string `json:"server"`
				Since  int64  `json:"since"`
				Limit  int    `json:"limit"`
			}
			if err := decodeArgs(args, &in); err != nil {
				return nil, "", err
			}
			if in.Limit < 0 || in.Limit > maxToolEvents {
				return nil, "", fmt.Errorf("limit must be between 1 and %d, got %d", maxToolEvents, in.Limit)
			}
			if in.Since < 0 {
				return nil, "", fmt.Errorf("since must be an event id (0 or more), got %d", in.Since)
			}
			list, err := h.unackedEvents(ctx, in.Server, in.Since, in.Limit)
			if err != nil {
				return nil, "", err
			}
			return list, jsonText(list), nil
		},
	}, {
		Name:        "ack_events",
		Description: "Acknowledges events (from mcptray__events) once handled, so they are not returned again: give their ids, or all: true (optionally with a server) for every pending one. Returns how many were acknowledged.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"ids":{"type":"array","items":{"type":"integer"},"description":"The ids of the events to acknowledge."},` +
			`"all":{"type":"boolean","description":"Acknowledge every pending event."},` +
			`"server":{"type":"string","description":"With all: only this server's events."}}}`),
		Call: func(ctx context.Context, args json.RawMessage) (any, string, error) {
			var req AckRequest
			if err := decodeArgs(args, &req); err != nil {
				return nil, "", err
			}
			n, err := h.Ack(req)
			if err != nil {
				return nil, "", err
			}
			out := struct {
				Acked int `json:"acked"`
			}{n}
			return out, jsonText(out), nil
		},
	}}
}

// Resources are the gateway's mcptray://events.
func (h *Hub) Resources() []mcp.BuiltinResource {
	return []mcp.BuiltinResource{{
		URI:         URI,
		Name:        "events",
		Title:       "Pending events",
		Description: "The events (new email, calendar events, …) the servers pushed that nobody has acknowledged yet, oldest first, as mcptray__events returns them. Subscribe to hear when it changes.",
		MIMEType:    "application/json",
		Read: func(ctx context.Context) (string, error) {
			list, err := h.unackedEvents(ctx, "", 0, 0)
			if err != nil {
				return "", err
			}
			return jsonText(list), nil
		},
	}}
}

// unackedEvents is one page of unacknowledged events (limit 0: the
// default).
func (h *Hub) unackedEvents(ctx context.Context, server string, since int64, limit int) (eventsList, error) {
	if limit == 0 {
		limit = defaultToolEvents
	}
	evs, err := h.store.Events(ctx, Filter{Server: server, SinceID: since, Limit: limit + 1})
	if err != nil {
		return eventsList{}, err
	}
	list := eventsList{Events: FromStore(evs)}
	if len(list.Events) > limit {
		list.Events, list.More = list.Events[:limit], true
	}
	return list, nil
}

// decodeArgs reads a builtin tool's arguments, refusing unknown fields so
// that a typo is an error rather than a silent default.
func decodeArgs(args json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fmt.Errorf("argument %s must be %s", te.Field, jsonKind(te.Type.Kind().String()))
		}
		return fmt.Errorf("arguments: %v", err)
	}
	return nil
}

func jsonKind(goKind string) string {
	switch goKind {
	case "int", "int64":
		return "an integer"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice":
		return "an array"
	}
	return "of another type"
}

// jsonText is v as indented JSON, the text mirror of structured content.
func jsonText(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
