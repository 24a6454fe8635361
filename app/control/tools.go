package control

// ToolInfo is one tool of a server, as `mcptray tools NAME --json` prints
// it.
type ToolInfo struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description"` // its first line
	ReadOnly    bool   `json:"readOnly"`    // annotated readOnlyHint: true
	Destructive bool   `json:"destructive"` // annotated destructiveHint: true
	Idempotent  bool   `json:"idempotent"`  // annotated idempotentHint: true
	OpenWorld   bool   `json:"openWorld"`   // annotated openWorldHint: true
	// Enabled is false when a glob of disabledTools turns it off; OffBy is
	// that glob.
	Enabled bool   `json:"enabled"`
	OffBy   string `json:"offBy,omitempty"`
	// Approval: its calls wait for the person's yes (x-mcptray.approve).
	Approval bool `json:"approval"`
	// Held says why the tool is held back (its description changed since
	// it was pinned); "" when it is not.
	Held string `json:"held,omitempty"`
}

// ToolList is a server's tools: the live ones when it is ready, else the
// last ones seen (Cached).
type ToolList struct {
	Server string     `json:"server"`
	State  string     `json:"state"`
	Cached bool       `json:"cached"` // the server is not ready: its last known tools
	Tools  []ToolInfo `json:"tools"`
}
