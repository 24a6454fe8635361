// Package app is mcptray's core: it reads mcp.json, watches it, supervises one
// downstream MCP server per entry, keeps per-server logs, and serves the
// control API (package control) on a unix socket: Core is its Backend
// (control_backend.go).
//
// [New] builds a Core without starting anything; [Core.Run] starts the
// watcher, the database watch (database.go), the supervisors (one goroutine tree per server) and the control
// API, blocks until its context ends, then stops every server (stdin close,
// SIGTERM to the group, SIGKILL to the group) before returning. [Core.Close]
// releases the store and the instance lock. Nothing in app imports Fyne.
//
// The control API refuses what decides for the person — answers,
// approvals, switches, secrets, mcptray's own edits of mcp.json — to
// mcptray's servers and their descendants (app/control/peer.go, DESIGN.md
// §14); the core tells a server's process (Core.InspectPeer) and records
// each refusal (refusal.go).
//
// The trust layer — pinned tools, launch approval, call approval — is
// package app/trust; trust_core.go gives it what it needs of the core
// (callbacks that take the core's mutex, never called with trust's lock
// held) and keeps the core's methods over it (ApproveServer).
//
// Which first request each stdio server takes (initialize or the
// server/discover probe) is kept in the store by a hash of its launch
// fingerprint, never the command line (probes.go), so a restart of
// mcptray goes straight to it.
//
// Remote servers that sign in (OAuth) are signin.go: a start that wants
// a sign-in waits in needs-sign-in with one inbox request, and only the
// person starts the sign-in (the request's yes, `mcptray auth login`);
// at most maxAsks sign-ins are asked in a row, across starts and calls,
// until one succeeds (then state error until the person acts);
// oauthclient.go puts mcp/oauthclient behind the RemoteAuth it uses.
//
// On Windows the control API is a named pipe (app/control), the instance
// lock is LockFileEx on DATA/mcptray.lock (instance_windows.go), the data
// dir gets a protected DACL that grants the user alone, which every file
// in it (endpoint.json, the database, the logs) inherits
// (private_windows.go), and the daemon log points the standard handles
// at its file, letting them go before each rotation's rename
// (daemonlog_windows.go). macOS runs the Unix code.
package app
