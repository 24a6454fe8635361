// Package control is mcptray's control API (DESIGN.md §12): JSON over the
// unix socket DATA/mcptray.sock (mode 0600), its reply types and its
// [Client]. The CLI, the tests and a second `mcptray` use the client; the
// running instance serves the API.
//
// On Windows the socket is a named pipe (github.com/Microsoft/go-winio;
// socket_windows.go): \\.\pipe\mcptray-<user> for the system data dir
// (config.SystemDataDir, %LOCALAPPDATA%\mcptray), and
// \\.\pipe\mcptray-<user>-<hash> for any other --data, hash being 12 hex
// digits of the SHA-256 of its absolute, cleaned, lower-cased path: pipe
// names are one namespace for the machine, and tests run several
// instances at once. Its DACL is protected and grants the current user
// alone (D:P(A;;GA;;;<SID>)). Listen dials the pipe first (another
// instance there is an error) and, under Wine only, keeps one connection
// to it open for the listener's life (Wine hands the first client a
// placeholder instance that is never accepted). connect relays its stdio
// there (no SCM_RIGHTS): ServeStdio half-closes with a zero-byte message,
// so the pipe is in message mode.
//
// # Contract
//
// The server side is a [Handler] over a [Backend], what the API needs from
// the running core (*app.Core implements it; app wires it): [Listen] on
// the data dir's socket ([SocketPath]), then an http.Server with the
// Handler and its ConnContext. The routes and their replies are listed on
// Handler; errors are {"error": "one line"} with 400, 404, 409 or 500. The
// JSON of the reply types ([Status], [ToolList], [EventPage], [InboxList],
// [SecretList], [ToolCall]) is a wire format: `mcptray status --json` and
// the other --json outputs print it as is.
//
// Only the person decides (DESIGN.md §14): enable, disable, approve, the
// tool switches, answers, forgetting an input, setting or removing a
// secret, PUT /v1/config and registering a window (POST /v1/windows/{kind},
// windows.go: a server holding the popup's place would keep the inbox's
// popup from opening) are refused (403) to a process that is one of
// mcptray's servers or descends from one (peer.go). The peer is taken from
// the socket when the connection opens (SO_PEERCRED on Linux,
// LOCAL_PEERPID on macOS, GetNamedPipeClientProcessId on Windows) and judged
// by the Backend (InspectPeer) for each such request; a refusal is the
// Backend's to log and show (RecordRefusal).
//
// `mcptray connect` turns a control connection into an MCP session (POST
// /v1/mcp with Upgrade: mcp-stdio, the bytes relayed; or mcp-fds, its own
// stdin and stdout handed over with SCM_RIGHTS) that the Backend serves
// (ServeMCP).
//
// [Client] maps the API's errors back: a 404 wraps config.ErrNoServer
// (inbox.ErrRequestClosed, inbox.ErrNoInputValue, config.ErrNoSecret where
// the route says so), a 409 of PUT /v1/config config.ErrChanged, an
// invalid answer is an *inbox.InvalidAnswerError; [Dial] fails with
// [ErrNotRunning] when no instance serves the socket.
//
// The package imports no app package but app/config, app/events and
// app/inbox (whose types are on the wire), and neither the gateway (mcp)
// nor mcp/downstream: a client does not link the supervisor
// (internal/depcheck).
//
// # Goroutines
//
// The package starts none to serve: the caller's http.Server runs each
// request on its own goroutine, and a handler returns when its request
// ends (GET /v1/inbox/watch when the client goes away; an upgraded MCP
// session when the Backend's ServeMCP returns). A session with handed-over
// stdio has one more goroutine, which reads the connection until connect
// goes away and then ends the session. On the client side,
// each stream ([Client.WatchInbox], [Client.WatchStatus],
// [Client.WatchEvents], [Client.HoldWindow]) has one goroutine that reads
// it into the channel and ends, closing it, when ctx ends or the instance
// goes away; a request to an instance that has gone since Dial fails with
// an error that is [ErrNotRunning] too. The streams are JSON lines
// (watch.go); app/remote builds the UI's Core on them.
package control
