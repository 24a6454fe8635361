// Package downstream is mcptray's side of the connection to each MCP
// server: the client end. It never imports the gateway (package mcp); the
// gateway reaches it through the exported API below, and it reaches the
// gateway only through the Router the gateway gives it.
//
// It starts downstream stdio servers in their own process groups, covers the
// SDK's known gaps in one place (non-JSON stdout lines, non-standard
// notification methods, process-group kill, the choice between
// initialize and the server/discover probe), and runs the per-instance
// watchdog that kills every server's process group when mcptray itself
// dies.
//
// # Sessions
//
// Start launches one stdio server (Setpgid, and on Linux Pdeathsig=SIGKILL),
// connects the SDK client over stdioConn (stdio_conn.go: stdout is filtered
// line by line, events are handed to Hooks.Event; stdio_checks.go: invalid
// UTF-8, tools with a key twice, stray replies) with initialize on
// 2025-11-25; a server that refuses initialize (one on 2026-07-28 only:
// it answers with an error, or exits without an answer) is started once
// more with the server/discover probe (probe.go), and the session speaks
// 2026-07-28 (NewWire; every request carries the revision's _meta,
// WireMeta, the log level included). StdioSpec.DiscoverFirst turns the
// order around. What a server took the second time is remembered in
// StdioSpec.Probes (a ProbeMemory: hashes, never a command line or a
// value; by StdioSpec.ProbeKey, which the app derives from the launch
// fingerprint and keeps in its database through NewProbeMemory's known
// and save), and its next start goes straight to it; a refusal of the
// remembered way forgets it and asks both ways again, and a server that
// takes neither fails with the first way's error, remembered nowhere. Why initialize first: go-sdk (v1.7 on)
// serves both revisions, a connection probed with server/discover stays on
// 2026-07-28 (it refuses a later initialize), and on that revision a
// server's tool can no longer send elicitation/create or sampling during
// a call, which the servers written for 2025-11-25 do (go-sdk's own
// conformance everything-server among them); go-sdk makes that choice per
// connection, never per request (sdk_wire_choice_test.go pins it;
// docs/protocol.md says what it costs). Start lists every page of
// tools. StartHTTP does the same for a
// remote streamable-HTTP server (http_checks.go: checkTap holds its
// responses to the same checks of requests and tools with a key twice),
// server/discover first: a request over HTTP leaves no state behind, and
// go-sdk serves 2026-07-28 over HTTP only where it keeps no session.
// HTTPSpec.OAuth (mcp/oauthclient's Handler) signs the SDK's requests and
// the raw posts alike; a raw post's 401/403 goes to its Authorize and is
// retried once, as the SDK does; the bearer token joins the session's
// redactions, and the handler hears the answers (ObserveResponse). With
// HTTPSpec.AskAuth, a ready session's request the handler cannot
// authorize waits while AskAuth asks the person, on both paths
// (askingHandler); HTTPSpec.AuthOK hears that the new token worked. The
// first error its Authorize gave during a start is in the start error
// (authTrack): go-sdk falls back from server/discover to initialize on any
// error, and that initialize may fail otherwise. Each Session owns its goroutines: a stdout
// reader, a stderr reader, a reaper that waits for the process and then
// stops whatever is left of its group, and a monitor that ends the session.
// All of them end once the process group is gone. Close escalates (close
// stdin, StopGrace, SIGTERM to the group, TermGrace, SIGKILL to the group;
// each signal also goes to the server's strays, below) and returns only
// when the process, its whole group and its strays are gone. Done is
// closed at the same point, whoever ended the session.
//
// # Strays and the subreaper (Linux)
//
// A server's descendant that calls setsid() (or setpgid()) leaves the
// group, and a signal to the group misses it: a stray. descendants_linux.go
// finds strays by one walk of /proc: every process that descends, by its
// parent links as they are now, from the leader (while its start time still
// matches: no reused pid), from a process of the group or from a stray
// known already, or whose /proc/PID/environ holds the server's marker —
// serverEnv=<random>, new for every start and inherited by descendants —
// for an orphan whose chain to the server is broken. Strays are kept by pid
// and start time, so a later process with the same pid is never signalled.
// The stop path looks for them first, while the leader still runs, and
// again whenever it checks whether the family is gone; the reaper does the
// same once the leader has exited by itself. A process that clears or
// overwrites its environment block and loses its parent before the stop
// is not found: that is the limit.
//
// Subreap (called by app.Core.Run, so by the daemon and the tray only)
// makes the process a child subreaper (PR_SET_CHILD_SUBREAPER). An orphan
// of a server's tree — the grandchild of a double fork — is then
// reparented to mcptray instead of init: it stays within reach, and when it
// dies it is mcptray's zombie, so mcptray must reap it. One goroutine does,
// after each SIGCHLD (the kernel sends one when a child exits and when a
// dead orphan is reparented to us), at most 20 times a second. It must not
// take an exit status that someone else waits for — exitwait and os/exec
// wait for servers, the watchdog and the browser opener, and would get
// ECHILD and lose the exit code. waitid(P_ALL, WNOWAIT) only ever shows the
// first zombie, so the reaper scans /proc instead, and reaps, by pid
// (P_PID, WNOHANG), only a zombie child that
//   - is not one of the children this package started and waits for
//     (startOwned registers them under the lock the scan holds, so a
//     server that exits at once is registered before it can be seen), and
//   - is not in mcptray's own process group, where every child that other
//     code starts with exec stays (orphans come from servers' groups or
//     sessions of their own).
//
// Code in a subreaper process that starts children in a group or session
// of their own and waits for them must use startOwned too. An orphan
// that joins mcptray's own group stays a zombie until mcptray exits.
//
// # Watchdog
//
// StartWatchdog re-executes the running binary with MCPTRAY_WATCHDOG=1;
// RunWatchdogIfRequested, first in main, turns that process into the
// watchdog. Sessions tell it the groups they start and forget, with each
// server's marker; when mcptray dies (EOF on the watchdog's stdin, or
// SIGTERM as its parent-death signal) it SIGKILLs every group still
// tracked, then every process carrying a tracked marker (strays: their
// parent links died with mcptray, and they were reparented to init or
// another subreaper), scanning again until none is left, for up to 2 s.
// ReapGroup is the backstop for the
// next start (and for macOS, which has no parent-death signal): it kills a
// stale group's processes that carry this instance's InstanceEnv marker,
// and ReapInstance then every process carrying a dead instance's marker,
// whatever its group (strays, when the watchdog died too).
//
// # Contract
//
//   - Start (stdio) and StartHTTP connect one server and return a Session
//     once it is initialized and its tools are listed; StdioSpec and
//     HTTPSpec say how, Hooks receive what the server says outside of
//     replies (log lines, events, tools/list_changed).
//   - Session: Tools, ListTools, CallTool, and the other requests through
//     the SDK's client (Client, Capabilities); Close, Done, ExitReason,
//     ExitCode, PID, PGID; Redact adds a secret; LogLevel is the level
//     asked for at startup, LogMessage hands a notifications/message to
//     Hooks.Log. ToolsRaw (and ToolsWithRaw) are the tools as the
//     server sent them, index for index with Tools (tools_raw.go; an HTTP
//     server's are read below the SDK by toolsTap, http_tools.go).
//     For the gateway's raw path: Stdio reports a stdio server,
//     WriteLine and WriteCall write one raw line to its stdin or queue it
//     (stdinQueue: bounded by MaxStdinQueue, else ErrStdinFull; never
//     waiting for the server), or post it to an HTTP server and hand the
//     answer to the Router's Tap (http_raw.go: a goroutine per POST, ended
//     with the session), Withdraw takes back a call's line still
//     queued; NotReading says a stdio server read nothing of what waits
//     for it for StdioSpec.NotReadingAfter (stdin_watch.go: its calls are
//     refused with NotReadingError, the Router's NotReading fails the
//     ones it did not read, Hooks.NotReading is told); LogStray logs a reply
//     that answers nothing (StrayNotInFlight, StrayOtherServer);
//     CallContext and Context end with the session; RedactJSON,
//     RedactText, RedactErr, RedactValue and RedactedAnswer take the
//     session's secrets out of what passes (wire.Secrets does the work);
//     PauseStartup stops the startup deadline while the server waits on
//     the person.
//   - The revision a session speaks (probe.go): ProtocolVersion, NewWire,
//     WireMeta (the _meta members each raw request to a 2026-07-28 stdio
//     server carries); StdioSpec.DiscoverFirst, StdioSpec.Probes
//     (ProbeMemory: NewProbeMemory(known, save) loads and saves it) and
//     StdioSpec.ProbeKey (ProbeKey; Fingerprint when zero). An HTTP session answers the
//     input_required rounds of prompts/get and resources/read itself,
//     through its Router (input.go, MaxInputRounds), and leaves a
//     tools/call's to its caller (the gateway's input loop).
//   - Router is what the gateway implements for each server: Attach gives
//     it to a session (before the stdout tap, so the tap never sees a
//     half-attached session); StdioSpec.Router and HTTPSpec.Router give one
//     for the startup, which takes elicitations only (TapElicit, Elicit).
//     Tap runs on the stdout read loop for every single-message line and
//     must not block; one interface call a line, nothing allocated.
//     NotReading (from the stdin watch's timer) and LostReply (a reply
//     over 16 MiB with no id at either end) fail the calls concerned.
//   - Deadline is a timer that can pause (a call's deadline while its
//     elicitation waits in the inbox, and the startup's).
//   - ConnTransport hands a made sdk.Connection to the SDK's Connect.
//   - The watchdog (StartWatchdog, RunWatchdogIfRequested, WatchdogEnv),
//     the subreaper (Subreap), ReapGroup and ReapInstance with InstanceEnv.
//   - InspectPeer says whether a process (the control socket's peer) is
//     one of the running servers or descends from one, by the same
//     signs as the strays: the group, the server's or instance's marker,
//     and the parent links up to this process (peer.go keeps the running
//     servers from start until their family is gone; Linux, and Windows
//     by the servers' Job Objects).
//
// # Goroutines
//
// A Session owns its goroutines: the stdout reader (stdioConn.readLoop,
// which runs the Router's Tap), the stdin writer (stdinQueue.run: started when
// a line first waits for the pipe, ended by Close), the stdin watch's
// timer (stdinWatch: a time.AfterFunc only while lines were sent lately,
// stopped by Close), the stderr reader, the reaper and the monitor for
// stdio; the SDK's for HTTP, and one per raw POST (WriteLine: it runs the
// Router's Tap, ends with the answer or the session). The SDK's client runs the
// handlers that call the Router's other methods. All of them end once the
// process group is gone (HTTP: the connection), and Close waits for that.
// The watchdog is its own process; Subreap starts one reaping goroutine
// for the life of the process. Nothing here starts a goroutine for the
// gateway: Router methods run on the goroutines above and must hand longer
// work off themselves.
//
// # Windows
//
// process.go and stdio.go are portable; what differs is in *_unix.go and
// *_windows.go. On Windows each stdio server starts suspended
// (CREATE_SUSPENDED, in a process group of its own, with no console
// window), goes into a Job Object of its own with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE and only then runs (NtResumeProcess:
// jobapi_windows.go), so every process it ever starts is in the job,
// whatever its parent links. Close escalates with the same graces: close
// stdin, StopGrace, nothing to send (no console to share, and
// CTRL_BREAK_EVENT does not work under Wine), TermGrace, then
// TerminateJobObject (exit code 1); the family is gone when the job has
// no active process. When mcptray dies, however it dies, the system closes
// the job handles and ends every server's family: the Watchdog is a type
// that does nothing (watchdog_windows.go), Subreap, ReapGroup and
// ReapInstance have nothing to do, and there are no strays. InspectPeer
// asks each running server's job whether the peer is in it
// (IsProcessInJob; peer_windows.go); ProcStart is the creation time.
// Exits are described by their code alone. Commands are looked up with
// PATHEXT, and PATH's name without case.
//
// Platform parts live in proc_linux.go and proc_other.go (other Unix,
// macOS included), process_unix.go and process_windows.go, proc_windows.go,
// peer_*.go, watchdog_unix.go and watchdog_windows.go.
package downstream
