package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcptray/mcptray/store"
)

// mcptray.db is mcptray's records, not a key to the door
// (app/trust/launch_reset.go).
// A database SQLite cannot open (not a database, damaged) does not stop
// mcptray: it is moved aside as mcptray.db.broken-TIME and mcptray starts
// with fresh records, under the reset rule (every entry waits, one
// request); the person is told (an event from "mcptray", with a desktop
// notification). A database deleted or replaced while mcptray runs is
// noticed within dbCheckInterval (the file's identity: device and inode),
// said the same way, and reopened: a file put in its place is moved aside
// as mcptray.db.replaced-TIME, a fresh database made, and what this
// process knows to be approved written into it.

// dbCheckInterval is how often the database file's identity is checked.
const dbCheckInterval = 2 * time.Second

// noticeServer is the server name of mcptray's own events.
const noticeServer = "mcptray"

// openStore opens data's database; one that is broken is moved aside and
// a fresh one opened. notice is what to tell the person ("" when all went
// well).
func openStore(data string, log *slog.Logger) (st *store.Store, notice string, err error) {
	path := dbPath(data)
	st, err = store.Open(path)
	if err == nil || !errors.Is(err, store.ErrBroken) {
		return st, "", err
	}
	moved, merr := store.MoveAside(path, "broken")
	if merr != nil {
		return nil, "", fmt.Errorf("%w (and %w)", err, merr)
	}
	log.Error("mcptray.db could not be opened: moved aside, starting with fresh records", "err", err, "moved", moved)
	reason := err
	if st, err = store.Open(path); err != nil {
		return nil, "", err
	}
	why := reason.Error()
	if i := strings.LastIndex(why, ": "); i >= 0 {
		why = why[i+2:] // the reason, without the path (a notification is short)
	}
	return st, fmt.Sprintf("%s. Moved to %s; fresh records: every entry waits for your approval.", why, filepath.Base(moved)), nil
}

// notice tells the person something about mcptray itself: an event from
// noticeServer, which the desktop shows as a notification.
func (c *Core) notice(title, body string) {
	params, _ := json.Marshal(map[string]string{"title": title, "body": body})
	c.events.Add(noticeServer, "mcptray/notice", params, nil)
}

// watchDatabase reopens the database when its file is deleted or
// replaced, until ctx ends.
func (c *Core) watchDatabase(ctx context.Context) {
	t := time.NewTicker(dbCheckInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if c.store.Replaced() {
			c.reopenStore()
		}
	}
}

// reopenStore reopens a database deleted or replaced while running, and
// writes into it what this process knows: the approved launches and the
// first start's flag.
func (c *Core) reopenStore() {
	moved, err := c.store.Reopen()
	if err != nil {
		c.log.Error("mcptray.db was deleted or replaced, and reopening it failed", "err", err)
		c.notice("mcptray.db was deleted or replaced", "Reopening it failed: "+err.Error())
		return
	}
	c.launches.Restore()
	body := "Reopened, with the approvals mcptray knows; tool pins start again."
	if moved != "" {
		body = fmt.Sprintf("The file in its place was moved to %s. %s", filepath.Base(moved), body)
	}
	c.log.Warn("mcptray.db was deleted or replaced while running: reopened", "moved", moved)
	c.notice("mcptray.db was deleted or replaced", body)
}
