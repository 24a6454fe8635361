package gmail

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// CursorFile is the poller's file under PollerOptions.DataDir: the
// historyId each account's new-mail poll goes on from. It holds no
// secret (a historyId is a number, useless without the account's access
// token).
const CursorFile = "gmail-cursors.json"

// mailCursor is where one account's poll stands.
type mailCursor struct {
	// HistoryID is the mailbox's historyId the next history.list starts
	// from.
	HistoryID uint64 `json:"history_id,string"`
	// Announced are messages announced from the history after HistoryID
	// by a poll that stopped part way (a message could not be read); the
	// next poll reads that history again and skips them. Empty once a
	// poll went through.
	Announced []string `json:"announced,omitempty"`
}

type cursorFile struct {
	Accounts map[string]mailCursor `json:"accounts"` // email → cursor
}

// mailCursors are the poller's cursors, kept in a file when a path is
// set.
type mailCursors struct {
	path string // "" keeps them in RAM

	mu    sync.Mutex // guards st and dirty
	st    cursorFile
	dirty bool // changed since the last save
}

// loadCursors reads dataDir's cursor file. A missing file is no cursors;
// a file it cannot read or parse is reported with the cursors empty, so
// the poller starts afresh (each account's next poll records where it
// stands and announces nothing).
func loadCursors(dataDir string) (*mailCursors, error) {
	c := &mailCursors{st: cursorFile{Accounts: map[string]mailCursor{}}}
	if dataDir == "" {
		return c, nil
	}
	c.path = filepath.Join(dataDir, CursorFile)
	b, err := os.ReadFile(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("reading the gmail cursors (starting afresh): %w", err)
	}
	var st cursorFile
	if err := json.Unmarshal(b, &st); err != nil {
		return c, fmt.Errorf("reading the gmail cursors %s (starting afresh): %w", c.path, err)
	}
	for email, cur := range st.Accounts {
		if cur.HistoryID != 0 {
			c.st.Accounts[email] = cur
		}
	}
	return c, nil
}

// get returns a copy of email's cursor, false when it has none yet.
func (c *mailCursors) get(email string) (mailCursor, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur, ok := c.st.Accounts[email]
	cur.Announced = slices.Clone(cur.Announced)
	return cur, ok
}

func (c *mailCursors) set(email string, cur mailCursor) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.st.Accounts[email]; ok && old.HistoryID == cur.HistoryID && slices.Equal(old.Announced, cur.Announced) {
		return
	}
	c.st.Accounts[email] = cur
	c.dirty = true
}

// keep forgets the cursors of accounts not in emails (removed, or no
// longer signed in for Gmail: a new sign-in starts afresh).
func (c *mailCursors) keep(emails []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for email := range c.st.Accounts {
		if !slices.Contains(emails, email) {
			delete(c.st.Accounts, email)
			c.dirty = true
		}
	}
}

// save writes the file when a cursor changed: atomically (a temporary
// file renamed over it), readable by the user only.
func (c *mailCursors) save() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.path == "" || !c.dirty {
		return nil
	}
	b, err := json.MarshalIndent(c.st, "", "  ")
	if err != nil {
		return fmt.Errorf("saving the gmail cursors: %w", err)
	}
	dir := filepath.Dir(c.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("saving the gmail cursors: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+CursorFile+".*") // created 0600
	if err != nil {
		return fmt.Errorf("saving the gmail cursors: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("saving the gmail cursors: %w", errors.Join(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), c.path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("saving the gmail cursors: %w", err)
	}
	c.dirty = false
	return nil
}
