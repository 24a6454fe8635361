// Package mcp is mcptray's gateway: the server end of the Model Context
// Protocol for assistants, which re-exposes the servers' sessions of
// mcp/downstream. app and cli import it for the gateway; the server side
// (mcp/downstream: sessions, processes, the watchdog) and the wire code
// (mcp/wire: raw JSON-RPC peeking and splicing, raw I/O, the hand-off, the
// stream writer, the redactor) are packages of their own, which never
// import this one. Only the mcp/... packages import the official go-sdk;
// this one covers the SDK server's gaps (a warning per list change for
// HTTP clients without a GET stream: sdklog.go).
//
// # Gateway
//
// A Gateway re-exposes the downstream sessions it is given (SetServer) to
// assistants: ServeStream serves one session of newline-delimited JSON-RPC
// (the unix socket behind `mcptray connect`), HTTPHandler serves
// streamable HTTP. Tools are named "<server>__<tool>" (serverPrefixes,
// prefixedName), or unprefixed on a single-server route; names.go resolves
// collisions, and a prefixed name by the longest server prefix it begins
// with, from the configured names alone.
//
// Each view (route × tool-list mode: live, stable, dynamic) is one
// sdk.Server that the SDK runs for every upstream session of that view
// (dynamic mode's meta tools and their search index: gateway_dynamic.go,
// gateway_search.go, over mcp/toolsearch):
// initialize, tools/list, resources, prompts, completion, logging,
// subscriptions, list_changed. tools/call takes a fast path on stream
// sessions: upstream.go peeks at each line (wire.PeekMessage), rewrites
// the id, the tool name and the progress token in place (wire.Splice) and
// writes the bytes to the server's stdin (Session.WriteCall: at once, or
// in the server's bounded queue, never waiting for the server); the
// session's stdout tap hands the reply line back to the gateway's Router
// (gwAttachment.Tap, gateway_call.go) by its "gw-N" id, and the same
// bytes, with the assistant's id, go upstream (wire.StreamWriter). Results
// are never decoded. HTTP sessions, HTTP servers, builtins and the meta
// tools take the slow path (gateway_call.go), through the SDK, still raw
// for stdio servers. tools/list is the SDK's list with each server's
// tool definition as the server sent it, only the name spliced
// (gateway_tools_raw.go). Tasks — task-augmented tools/call, tasks/* and
// notifications/tasks/status — are relayed as bytes to the server that
// made the task, stdio or HTTP (whose Session.WriteLine posts the line
// and taps the answer), which the gateway remembers per upstream session
// (gateway_tasks.go). The 2026-07-28 wire (no session; server/discover,
// per-request _meta) is served beside the older ones on every endpoint
// (gateway_wire26.go; docs/protocol.md). A 2026-07-28 request's
// io.modelcontextprotocol/logLevel gets the server's log messages during
// the call at that level and above, and none without one
// (gateway_loglevel.go: an older server's per-connection level lowered
// for the call, the messages filtered per call and per session). A
// server's list_changed reaches assistants only when a view's list
// changed (view.sync compares each tool's definition). Sampling and
// elicitation from a server go to the
// assistant whose call is in flight to it (the most recent one), or, for
// secrets and assistants that cannot take them, to GatewayOptions.Elicit
// (gateway_elicit.go); while a server starts, the spec's Router (Gateway.Router)
// sends its elicitations there, and the startup deadline stops while they
// wait (downstream/session_startup.go).
//
// A server on 2026-07-28 (downstream.Session.NewWire) gets each call
// with the revision's _meta spliced in (wireMetaEdits: no decoding), and
// may answer it with an input_required result: gateway_input.go answers
// its questions as the same requests sent the older way (elicit,
// createMessage; roots: none), retries the call under the same gateway id
// with inputResponses and the requestState as it came, at most
// maxInputRounds times, and passes on only the final result — to an
// older assistant as an older server's (oldWireEdits: no resultType, no
// serverInfo). Fast-path calls run the rounds on a goroutine of their own
// (fastInput), slow-path ones in forward, a remote server's in callHTTP.
// To an assistant on 2026-07-28 that can answer a round, the round is
// relayed, the server's requestState sealed (gateway_input_relay.go,
// gateway_seal.go); its retry, a new call, is opened in forward.
//
// A server on an older revision asks during a 2026-07-28 call with
// requests (elicitation/create, sampling/createMessage, roots/list). The
// park (gateway_park.go) holds such a question, when the assistant
// declared it and it is no secret, with the server's call still open: the
// assistant's request ends with input_required (the questions gathered
// until none came for parkSettle, a requestState sealed with the parked
// call's number), and its retry, on the slow path (forward,
// gateway_park_resume.go), answers the server's requests and waits for the
// result or the next round. The fast and slow paths of stdio servers park
// in the call table; an HTTP server's call, prompts/get and resources/read
// run the SDK client on a goroutine that outlives the assistant's request
// (gateway_park_http.go, gateway_park_sdk.go). A parked call not
// retried within its life is cancelled toward the server.
//
// Secrets typed into the inbox for a server (and password inputs) are
// replaced by "[redacted]" in everything its session passes on: results,
// notifications, events (before Hooks.Event), lists, requests and errors
// (downstream/session_redact.go, wire/secrets.go). With no secret, that
// costs a nil check per message.
//
// Goroutines: ServeStream runs its read loop on the caller's goroutine and
// one writer per stream; the SDK runs its own per session. SetServer
// starts one watcher per session (ends with it) and short-lived listers.
// A call's deadline is a timer (downstream.Deadline); nothing polls. The
// Router methods (gateway_router.go) run on the session's goroutines —
// Tap on its stdout read loop — and hand longer work (an elicitation) to
// goroutines of their own.
//
// # Contract
//
// NewGateway makes a Gateway; SetServer, SetConfigured and SetSettings
// feed it; ServeStream and HTTPHandler serve assistants; Router gives the
// downstream.Router of a server for its spec while it starts. StdioStream
// and RawListener wrap an assistant's handed-over stdio and the HTTP
// endpoint's listener for raw I/O.
package mcp
