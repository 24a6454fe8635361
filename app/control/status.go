package control

import "time"

// Server states, as shown in `mcptray status` and the UI.
const (
	StateDisabled   = "disabled"
	StateStarting   = "starting"
	StateReady      = "ready"
	StateRestarting = "restarting"
	StateError      = "error"
	StateCrashLoop  = "crash-loop"
	StateStopping   = "stopping"
	StateStopped    = "stopped"
	// StateWaitingInput: the entry uses a ${input:ID} the person has not
	// given yet; it waits in the inbox.
	StateWaitingInput = "waiting-input"
	// StateNeedsSignIn: a remote server wants the person to sign in
	// (OAuth); the inbox asks them, and ServerStatus.SignIn says where.
	StateNeedsSignIn = "needs-sign-in"
)

// StateNeedsApproval: a new or changed entry waits for the person's yes
// before it runs.
const StateNeedsApproval = "needs-approval"

// ServerStatus is one server's row in `mcptray status --json`.
type ServerStatus struct {
	Name     string    `json:"name"`
	Type     string    `json:"type"`
	Enabled  bool      `json:"enabled"`
	State    string    `json:"state"`
	PID      int       `json:"pid"`
	Tools    int       `json:"tools"`
	Restarts int       `json:"restarts"`
	Error    string    `json:"error"`
	Since    time.Time `json:"since"`
	// InboxRefused counts the server's inbox requests answered cancel at
	// once, since mcptray started, because inbox.MaxPendingPerServer (32) of
	// them were waiting already.
	InboxRefused int `json:"inboxRefused"`
	// NotReading says the stdio server is not reading its input: nothing
	// of what waits for it was read for x-mcptray.inputTimeout; its calls
	// fail at once until it reads again.
	NotReading bool `json:"notReading,omitempty"`
	// StderrTail is the last lines a stdio server wrote on stderr (redacted,
	// oldest first) when its last start failed; Error quotes the most
	// telling of them. Empty once it is ready.
	StderrTail []string `json:"stderrTail,omitempty"`
	// SignIn says where the person signs in, in state needs-sign-in
	// (never a token or an address to open).
	SignIn *SignInStatus `json:"signIn,omitempty"`
}

// Status is the whole core's state: what `mcptray status --json` prints.
type Status struct {
	Servers     []ServerStatus `json:"servers"`
	ConfigError string         `json:"configError"`
	ConfigPath  string         `json:"configPath"`
	// Endpoint is the HTTP endpoint's URL; EndpointError says why it is off.
	Endpoint      string `json:"endpoint"`
	EndpointError string `json:"endpointError,omitempty"`
	// EndpointWarning says why the endpoint is not at its configured
	// address (its port was taken, so it listens on a free one).
	EndpointWarning string `json:"endpointWarning,omitempty"`
	// ServerPath is the PATH the servers get (an entry's env may set its
	// own): mcptray's own, or the login shell's followed by the entries of
	// mcptray's own it lacks. LoginShell says which, and why.
	ServerPath string           `json:"serverPath"`
	LoginShell LoginShellStatus `json:"loginShell"`
	// Windows are the kinds of window open in processes of their own
	// (WindowMain, WindowPopup), each once, sorted.
	Windows []string `json:"windows,omitempty"`
	// Unreachable is set by a client that lost the instance (app/remote),
	// in words for the person: "mcptray is not running; waiting for it to
	// start again". The rest is what the instance said last. Never on the
	// wire: the instance itself is never unreachable.
	Unreachable string `json:"-"`
}

// Login shell states, as in Status.LoginShell.
const (
	LoginShellOff     = "off"     // not read: Detail says why
	LoginShellReading = "reading" // servers that start wait for it (at most loginenv.Timeout)
	LoginShellUsed    = "used"    // servers get its PATH and variables
	LoginShellFailed  = "failed"  // servers get mcptray's own environment; Detail says why
)

// LoginShellStatus says where the servers' PATH comes from.
type LoginShellStatus struct {
	State  string `json:"state"`
	Shell  string `json:"shell,omitempty"`
	Detail string `json:"detail,omitempty"`
}
