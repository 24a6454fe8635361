// Package remote is the core as another mcptray process sees it: a Core
// with every method of ui.Core, over the control API of the instance that
// runs on a data dir (app/control's Client on DATA/mcptray.sock, a named
// pipe on Windows). The short-lived window processes (`mcptray window`,
// `mcptray popup`) show the instance through it and exit when closed, so
// the long-lived tray process keeps no GL context, fonts or Mesa.
//
// The remote Core is thin: what the instance decides goes through the
// control API (status, toggles, restarts, tools, the inbox, events,
// secrets); what the CLI does itself it does the same way here (mcp.json
// through app.OwnFile, written through the instance; logs with
// app.TailLog; the token with app.Token; the Google accounts with
// app/googleaccounts; the assistants' configs with app/assistants). No
// secret goes into argv, the environment or a log: an answer or a
// secret's value travels only in a request body on the socket.
//
// # Surviving the instance's restart
//
// [Dial] opens a status watch, which is also how the Core knows the
// instance is there. When it ends, Status (and Subscribe) carry
// control.Status.Unreachable ([NotRunning]) and calls fail with an error
// that says so; the watch, and every subscription (SubscribeInbox,
// SubscribeEvents, HoldWindow), redials with a short backoff
// (retryMin doubling to retryMax) and resumes: the status is the new
// instance's, the inbox says Closed (outcome [OutcomeGone]) for each
// request it had reported that the new instance does not list, the events
// say Missed (re-read them), and a held window is registered again.
//
// # Goroutines
//
// Dial starts one goroutine (the status watch); each SubscribeInbox,
// SubscribeEvents and HoldWindow starts one more (and control.Client one
// per open stream). Each ends with its cancel or with [Core.Close], which
// waits for them all. Calls block their caller for one request on the
// socket (at most callTimeout).
package remote
