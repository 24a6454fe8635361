// Package trust is mcptray's trust layer (DESIGN.md §14): what runs and
// what is called only with the person's yes. Three parts, each with its
// own state and lock:
//
//   - Pins (pins.go): pinned tool descriptions. The first time a tool is
//     seen its hash is stored; a later listing that changes it holds the
//     tool back from the gateway until the person accepts the change in
//     the inbox (kind tool-change).
//   - Launches (launch.go, launch_reset.go, launchkey.go): approved
//     launches. An entry that is new, or whose launch differs from the one
//     approved, waits (WaitApproval) until the person allows it in the
//     inbox (kind launch) or with `mcptray approve`. The first start of an
//     install approves what is there, once per install (its marker is in
//     the keyring); a reset of mcptray's records asks one question for all
//     (kind launch-reset).
//   - Calls (approve.go): approval before a call of a tool that needs it
//     (x-mcptray.approve; kind approval).
//
// # Contract
//
// trust asks the person through an Asker, which *inbox.Inbox satisfies;
// it imports app/inbox for the request types, and inbox never imports
// trust. What it needs of the core comes in Options as values, small
// interfaces and callbacks: the store, the logger, the install marks, the
// paths, the current inbox deadline, the entry's approve mode, the write
// of allowTools (config.File.AllowTool), lines for a server's log and
// what to do when a held tool is released. A server that waits for
// approval is a Waiter. trust never holds a pointer to the core, and
// imports neither app, app/control, app/events, cli nor ui
// (internal/depcheck).
//
// # Locks
//
// Pins.mu guards the pins and held tools; Launches.mu guards the approved
// launches, the first start's flag, the open reset question and the trust
// setting. Each is a leaf: held only around the package's own maps, never
// while calling an Options callback, the Asker, a Waiter or the store. The
// core may call trust with its own mutex held (Tools reads Pins.Held), so
// the order is core's mutex, then trust's; the callbacks, which take the
// core's mutex, are only called with no lock of trust's held.
//
// # Goroutines
//
// trust starts no goroutine at construction. Pins.Check runs on the
// gateway's goroutines and starts one goroutine per question about a
// changed tool; it ends when the question is answered, times out or is
// superseded (Pins.Forget, the tool back as pinned). Launches.Check, on
// the core's apply step, may start the one goroutine of the reset
// question; it ends with the question or the context given to Check, and
// Launches.Close waits for it. WaitApproval runs on the waiting server's
// goroutine and starts one goroutine for its inbox question, ended with
// it. Calls.Approve runs on the gateway's goroutine of the call.
package trust
