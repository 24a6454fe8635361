// Package gmail is mcptray's built-in Gmail MCP server (`mcptray serve
// gmail`, run by mcptray-google).
//
// Its tools (search, read_message, read_thread, send, create_draft,
// list_drafts, send_draft, delete_draft, modify, trash, list_labels,
// create_label, download_attachment) call the official gmail/v1 client for
// an account of a [google.AccountSource]; each takes an optional account
// (default [Options].Account, else the first account added). A call whose
// account must sign in goes to [Options].SignIn once and is retried after
// it; rate-limited calls are retried with google.DefaultBackoff; API
// errors are worded for a model to act on (explain.go).
//
// Sending is the person's decision ([Options].Send, from
// x-mcptray.google.gmailSend): under SendConfirm, send and send_draft ask
// the person first through a form-mode elicitation marked
// google.InboxMeta, which mcptray keeps in its own inbox (confirm.go);
// under SendDraftsOnly they are not listed at all; SendAllow sends
// without asking. Nothing is ever deleted for good: trash trashes.
//
// Mail is composed here (mime.go: RFC 2047 headers, UTF-8 bodies,
// multipart with attachments, reply headers from the original) and read
// here (body.go: text/plain preferred, else HTML made text). Attachments
// go to and come from files: a file to send must lie inside
// [Options].LocalRoots (x-mcptray.localRoots, shared with the SSH
// server), a downloaded one is written under [Options].DownloadDir and
// never overwrites (attachments.go); their bytes never enter the context.
//
// Goroutines: the tool handlers run on the SDK's; search and trash work
// on a few messages at a time on goroutines that end before they return.
// ServeStdio starts the new-mail poller through startPoller (server.go;
// the poller itself, event/new_email every [Options].Poll, is
// poller.go's) and returns only once it has stopped. The Server holds
// no other state than caches of each account's labels and send-as
// addresses (a few minutes old at most).
package gmail
