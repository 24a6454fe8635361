// Package events is mcptray's event pipeline (DESIGN.md §8): what the MCP
// servers push outside the protocol ("event/new_email"), from a server's
// read loop to the database, the subscribers, the desktop notifications
// and the gateway's mcptray__events, mcptray__ack_events and
// mcptray://events.
//
// A notification a server sends with a method outside the protocol reaches
// Hooks.Event in the server's stdout read loop; the core gives each server
// Hub.Hook as that hook. ingest checks the event (method, params: a JSON
// object of at most 1 MiB; a bad one is skipped and said in the server's
// Log) and puts it on a bounded queue (queue.go); Hub.Add queues
// mcptray's own events (a notice, a refused request) the same way. One
// writer goroutine stores what is queued in batches, one transaction each,
// then tells the subscribers (Hub.Subscribe), the notifier and the gateway.
// The read loop never waits for the database: when the queue is full (the
// database takes no writes: a full disk, a lock), further events are
// dropped and counted, and the log says so when that starts and, with the
// count, when the queue drained — the server's own replies keep flowing
// meanwhile.
//
// The hub is given its store and logger (Options), never the core. The
// store may be reopened while the hub runs (a mcptray.db replaced:
// store.Store.Reopen); that swaps the database behind the same
// *store.Store, so the hub needs nothing for it.
//
// Notifications (notify.go): the coalescer turns stored events into
// Notifications for the Notifier (the UI's): the first event of a server
// at once, the rest of its 10 s as one "N new events from <server>".
//
// Goroutines: NewHub starts none. Start starts the writer, the resource
// updater (tells the ResourceUpdater of changes, at most every 250 ms),
// the pruner (deletes acknowledged events and tool-call records older than
// the retention period: when SetRetention changes it, then daily) and the
// notifier's goroutine, the only one that calls Notifier.Notify. The stop
// function Start returns — called once no server can send events any
// more — stores what is still queued, waits for the writer, the updater
// and the pruner, and stops the notifier (without waiting for a Notify
// call in progress: it may hang). Hook's function runs on the server's
// read loop and never blocks; Add, Ack and publish never block on a
// subscriber (a subscriber that falls behind misses changes and is told:
// Change.Missed).
package events
