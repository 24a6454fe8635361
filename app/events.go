package app

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/events"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/mcp"
	"github.com/mcptray/mcptray/store"
)

// Events (DESIGN.md §8) are the app/events package's: a notification a
// server sends with a method outside the protocol ("event/new_email")
// reaches Hooks.Event in the server's stdout read loop (eventHook), and
// the hub queues, stores and publishes it. This file wires the hub into
// the core.

// startEvents starts the event hub, the tool-call history writer and the
// inbox's audit writer. The function it returns stops them, once no
// server can send events any more: it closes the inbox's requests still
// open (their servers are gone), stores what is still queued and waits.
func (c *Core) startEvents() (stop func()) {
	stopHub := c.events.Start(c.gw)
	var wg sync.WaitGroup
	for _, f := range []func(){c.history.write, c.audit.Run} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	return func() {
		c.inbox.CloseAll(inbox.Result{Reply: &mcp.ElicitResult{Action: inbox.ActionCancel}, Outcome: store.OutcomeCancel, By: inbox.ClosedByServer})
		stopHub()
		c.history.stop()
		c.audit.Stop()
		wg.Wait()
	}
}

// eventHook is a server's Hooks.Event. The server's x-mcptray.notify
// setting is read once per start (a change restarts the server).
func (c *Core) eventHook(name string, spec config.Server, log *serverLog) func(string, json.RawMessage) {
	return c.events.Hook(name, notifySetting(spec, log), log)
}

// notifySetting reads an entry's "x-mcptray": {"notify": false}.
func notifySetting(spec config.Server, log *serverLog) bool {
	raw, ok := spec.Settings["notify"]
	if !ok {
		return true
	}
	var on bool
	if err := json.Unmarshal(raw, &on); err != nil {
		log.Write(logLifecycle, fmt.Sprintf("x-mcptray.notify must be true or false, got %s: notifications stay on", raw))
		return true
	}
	return on
}

// Events returns the events f selects, oldest first.
func (c *Core) Events(f events.Filter) ([]events.Event, error) { return c.events.Events(f) }

// UnackedEvents counts the events nobody acknowledged yet.
func (c *Core) UnackedEvents() (int, error) { return c.events.Unacked() }

// AckEvents acknowledges events and returns how many were not already.
// An unknown id fails the whole request (events.ErrNoEvent).
func (c *Core) AckEvents(req events.AckRequest) (int, error) { return c.events.Ack(req) }

// SubscribeEvents returns a channel of event changes (new events, acks)
// and a cancel func; see events.Hub.Subscribe.
func (c *Core) SubscribeEvents() (<-chan events.Change, func()) { return c.events.Subscribe() }
