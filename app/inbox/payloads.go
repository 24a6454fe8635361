package inbox

// The details a request of mcptray's own shows the person, by its kind.
// They are filled where the question arises (the trust layer: approvals of
// calls and launches, pinned tools); the inbox only carries them.

// CallApproval is what an approval request shows of the call.
type CallApproval struct {
	// Arguments are the call's arguments, pretty-printed JSON with long
	// values folded; the values typed as secrets for the server are
	// redacted.
	Arguments   string `json:"arguments"`
	ReadOnly    bool   `json:"readOnly"`    // the tool says it only reads
	Destructive bool   `json:"destructive"` // the tool says it may destroy data
	Why         string `json:"why"`         // why mcptray asks
}

// LaunchApproval is what an inbox request of kind launch shows.
type LaunchApproval struct {
	File        string   `json:"file"`        // mcp.json's path
	Entry       string   `json:"entry"`       // the entry's name
	CommandLine string   `json:"commandLine"` // what it runs; variables other than ${self}, ${userHome} and ~ as written
	EnvNames    []string `json:"envNames,omitempty"`
	Cwd         string   `json:"cwd,omitempty"`
	// Previous is the command line approved before, when the entry changed
	// ("" for a new entry).
	Previous string `json:"previous,omitempty"`
	// Changes say what changed beside the command line, one per line:
	// "NODE_OPTIONS: --require x" (the new value, in full, of a variable
	// known to load code), "API_KEY: value changed", "PATH: contents
	// changed since you approved it".
	Changes []string `json:"changes,omitempty"`
}

// LaunchReset is what a request of kind launch-reset shows.
type LaunchReset struct {
	File    string           `json:"file"`    // mcp.json's path
	Why     string           `json:"why"`     // why every entry waits
	Entries []LaunchApproval `json:"entries"` // what each would run
}

// ToolChange is what an inbox request of kind tool-change shows.
type ToolChange struct {
	Tool           string `json:"tool"`
	OldDescription string `json:"oldDescription"`
	NewDescription string `json:"newDescription"`
	// Changes list what else changed, one line each: "+ inputSchema.properties.mode: {…}",
	// "- inputSchema.required[1]: \"path\"", "~ annotations.destructiveHint: false → true".
	Changes []string `json:"changes,omitempty"`
}

// SignIn is what an inbox request of kind sign-in shows: where the
// person signs in. Never a token; the address to visit is made only once
// the person accepts.
type SignIn struct {
	IssuerHost string `json:"issuerHost"`
	// StepUp: a call needs more scopes than the sign-in granted.
	StepUp bool `json:"stepUp,omitempty"`
}
