package ui

import "github.com/mcptray/mcptray/app"

// Core is what the UI needs from the core; package app satisfies it.
type Core interface {
	// Status returns the current state of every server and of the config.
	Status() app.Status
	// Subscribe returns a channel that receives the latest status on every
	// change. Updates are coalesced: intermediate states may be dropped. cancel
	// ends the subscription; the channel need not be closed by it.
	Subscribe() (updates <-chan app.Status, cancel func())
	// SetEnabled turns a server on or off (rewrites its "disabled" key in the
	// config file; the change then flows back through Subscribe).
	SetEnabled(name string, enabled bool) error
}
