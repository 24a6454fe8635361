// Package calendar is mcptray's built-in Google Calendar MCP server
// (`mcptray serve gcal`).
//
// Its tools (list_calendars, list_events, get_event, create_event,
// update_event, delete_event, respond_to_event, find_free_time,
// current_time) call the official calendar/v3 client for an account of a
// [google.AccountSource]; each takes an optional account (default
// [Options].Account, else the first account added; reads take "all").
// A call whose account must sign in goes to [Options].SignIn once and is
// retried after it; rate-limited calls (429, 403 rateLimitExceeded) are
// retried with backoff and jitter, honouring Retry-After (retry.go; the
// generated client retries nothing but uploads).
//
// Times: all-day events are dates end to end (never converted to an
// instant, so never shifted a day); a time needs an offset or a
// time_zone, and the error says which field lacks it (times.go).
//
// Changes become events: [Server.Poll] (started by ServeStdio) syncs each
// account's selected calendars every [Options].Poll with sync tokens
// (poller.go), keeps its cursors in a file under [Options].DataDir
// (cursors.go), and emits event/new_calendar_event,
// event/calendar_event_updated, event/calendar_event_cancelled and
// event/calendar_reminder through [Options].Notify (by default raw
// JSON-RPC notifications on stdout, stdioserver.Notify). The poller is
// one goroutine, ended with ServeStdio's context.
package calendar
