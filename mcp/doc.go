// Package mcp speaks the Model Context Protocol for mcptray. It is the only
// package that imports the official go-sdk.
//
// It starts downstream stdio servers in their own process groups, covers the
// SDK's known gaps in one place (non-JSON stdout lines, non-standard
// notification methods, process-group kill, protocol pinning, a warning
// per list change for HTTP clients without a GET stream: sdklog.go), and
// runs the per-instance watchdog that kills every server's process group
// when mcptray itself dies.
//
// # Sessions
//
// Start launches one stdio server (Setpgid, and on Linux Pdeathsig=SIGKILL),
// connects the SDK client over stdioConn (stdio_conn.go: stdout is filtered
// line by line, events are handed to Hooks.Event; stdio_checks.go: invalid
// UTF-8, tools with a key twice, stray replies) pinned to protocol
// 2025-11-25, and lists every page of tools. StartHTTP does the same for a
// remote streamable-HTTP server. Each Session owns its goroutines: a stdout
// reader, a stderr reader, a reaper that waits for the process and then
// stops whatever is left of its group, and a monitor that ends the session.
// All of them end once the process group is gone. Close escalates (close
// stdin, StopGrace, SIGTERM to the group, TermGrace, SIGKILL to the group)
// and returns only when the process and its whole group are gone. Done is
// closed at the same point, whoever ended the session.
//
// # Watchdog
//
// StartWatchdog re-executes the running binary with MCPTRAY_WATCHDOG=1;
// RunWatchdogIfRequested, first in main, turns that process into the
// watchdog. Sessions tell it the groups they start and forget; when mcptray
// dies (EOF on the watchdog's stdin, or SIGTERM as its parent-death signal)
// it SIGKILLs every group still tracked. ReapGroup is the backstop for the
// next start (and for macOS, which has no parent-death signal): it kills a
// stale group's processes that carry this instance's InstanceEnv marker.
//
// # Gateway
//
// A Gateway re-exposes the downstream sessions it is given (SetServer) to
// assistants: ServeStream serves one session of newline-delimited JSON-RPC
// (the unix socket behind `mcptray connect`), HTTPHandler serves
// streamable HTTP. Tools are named by ToolName ("<server>__<tool>"), or
// unprefixed on a single-server route; names.go resolves collisions, and
// a prefixed name by the longest configured server name it begins with.
//
// Each view (route × tool-list mode: live, stable, dynamic) is one
// sdk.Server that the SDK runs for every upstream session of that view:
// initialize, tools/list, resources, prompts, completion, logging,
// subscriptions, list_changed. tools/call takes a fast path on stream
// sessions: upstream.go peeks at each line (raw.go), rewrites the id, the
// tool name and the progress token in place and writes the bytes to the
// server's stdin; stdioConn's tap hands the reply line back by its "gw-N"
// id, and the same bytes, with the assistant's id, go upstream. Results
// are never decoded. HTTP sessions, HTTP servers, builtins and the meta
// tools take the slow path (gateway_call.go), through the SDK, still raw
// for stdio servers. Sampling and elicitation from a server go to the
// assistant whose call is in flight to it (the most recent one), or, for
// secrets and assistants that cannot take them, to GatewayOptions.Elicit
// (gateway_elicit.go); while a server starts, the spec's Gateway sends its
// elicitations there, and the startup deadline stops while they wait
// (session_startup.go).
//
// Secrets typed into the inbox for a server (and password inputs) are
// replaced by "[redacted]" in everything its session passes on: results,
// notifications, events (before Hooks.Event), lists, requests and errors
// (redact.go). With no secret, that costs a nil check per message.
//
// Goroutines: ServeStream runs its read loop on the caller's goroutine and
// one writer per stream; the SDK runs its own per session. SetServer
// starts one watcher per session (ends with it) and short-lived listers.
// A call's deadline is a timer; nothing polls.
//
// Platform parts live in proc_linux.go and proc_other.go (other Unix);
// Windows is not supported yet.
package mcp
