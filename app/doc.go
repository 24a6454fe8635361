// Package app is mcptray's core: it reads mcp.json, watches it, supervises one
// downstream MCP server per entry, keeps per-server logs, and serves the
// control API on a unix socket.
//
// [New] builds a Core without starting anything; [Core.Run] starts the
// watcher, the database watch (database.go), the supervisors (one goroutine tree per server) and the control
// API, blocks until its context ends, then stops every server (stdin close,
// SIGTERM to the group, SIGKILL to the group) before returning. [Core.Close]
// releases the store and the instance lock. Nothing in app imports Fyne.
//
// The control API refuses what decides for the person — answers,
// approvals, switches, secrets, mcptray's own edits of mcp.json — to
// mcptray's servers and their descendants (peer.go, DESIGN.md §14).
//
// The trust layer — pinned tools, launch approval, call approval — is
// package app/trust; trust_core.go gives it what it needs of the core
// (callbacks that take the core's mutex, never called with trust's lock
// held) and keeps the core's methods over it (ApproveServer).
package app
