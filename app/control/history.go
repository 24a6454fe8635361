package control

import "time"

// ToolCall is one tool call through the gateway, as `mcptray history`
// shows it: never its arguments or its result.
type ToolCall struct {
	Server     string    `json:"server"`
	Tool       string    `json:"tool"` // the server's own name for it
	Started    time.Time `json:"started"`
	DurationMS float64   `json:"durationMs"`
	Outcome    string    `json:"outcome"` // ok, error, cancelled or timeout
}
