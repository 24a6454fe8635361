// Package inbox is mcptray's secret inbox (DESIGN.md §7): the requests only
// the person can answer. They are elicitations the gateway keeps from the
// assistant, URL elicitations of a tool call's -32042 error, ${input:ID}
// prompts of mcp.json, and mcptray's own questions (a call's approval, a
// new or changed entry, a reset of mcptray's records, a changed pinned
// tool), whose details the payload types carry (CallApproval,
// LaunchApproval, LaunchReset, ToolChange).
//
// # Contract
//
// An asker calls [Inbox.Ask] and blocks until the request closes: the
// person answers ([Inbox.Answer], from the UI or the CLI through the
// control API), whichever answers first wins; the deadline passes; or the
// asker's context ends (the server withdrew the request or went away). Ask
// always returns a [Result]: its Reply goes to the server. A form's values
// are checked against its fields ([Field.Parse]) before the request closes:
// a bad one returns an *[InvalidAnswerError] naming the field, never the
// value, and the request stays open; an answer to a request that is not
// open wraps [ErrRequestClosed]. A server with [MaxPendingPerServer]
// requests waiting has its next ones answered cancel at once
// ([ClosedByFull]); the gateway's callback (app/inbox_core.go) refuses a
// request over [MaxMessage], [MaxSchema] or [MaxFields] before it gets
// here.
//
// Values go to the requesting server only: they are never logged, stored,
// published in an [Event] or put in an error. Each closed request (and
// each refused one) leaves one audit row ([AuditLog]: who asked what and
// how it ended, never a value).
//
// [Inputs] holds the ${input:ID} values given in this process and makes
// one question per input, however many servers wait for it. Where a value
// is kept beyond the process (the keyring, the store) is the core's
// (app/inbox_inputs.go, with app's SecretStore).
//
// The JSON of [Request], [Event], [Answer] and the payload types is the
// control API's (GET /v1/inbox, /v1/inbox/watch, POST /v1/inbox/{id}) and
// `mcptray inbox --json`'s: their tags are a wire format.
//
// # Goroutines
//
// An Inbox starts no goroutine of its own to run: Ask blocks on the
// asker's goroutine, Answer and CloseAll close on the caller's, and each
// request's deadline is a time.AfterFunc timer that closes it on the
// timer's goroutine. [Inbox.Subscribe] starts one goroutine per subscriber
// that drains its unbounded queue into the channel (publishing never
// blocks and no event is dropped); it ends after the cancel func is
// called, and closes the channel. The Refused and Relieved hooks run on
// the goroutine that added or closed the request, outside the inbox's
// lock.
//
// [Inputs.Ask] runs the first caller's question on a goroutine of its own
// until it returns; the waiters block on their own goroutines.
//
// [AuditLog.Run] is the audit writer: its owner (app's startEvents) runs it
// on a goroutine of its own, and stops it with [AuditLog.Stop] after
// [Inbox.CloseAll], so the rows of the requests still open at shutdown
// are stored before Stop returns. A full queue makes the closing goroutine
// wait: nothing is dropped.
//
// This package imports no other app/* package but app/config, and never
// app, app/control, app/events, app/trust, cli or ui
// (internal/depcheck).
package inbox
