package calendar

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// CursorsFile is the poller's file under Options.DataDir: where each
// calendar's sync stands, the look-ahead for reminders and the reminders
// sent. It holds no secret (sync tokens are opaque cursors, useless
// without the account's access token).
const CursorsFile = "gcal-cursors.json"

// calCursor is where one calendar's sync stands.
type calCursor struct {
	SyncToken  string `json:"sync_token,omitempty"`
	UpdatedMin string `json:"updated_min,omitempty"` // the fallback when Google gave no sync token
	// Watermark is the latest modification time seen (Google's clock):
	// an event created after it is new, one created before it changed.
	Watermark string `json:"watermark,omitempty"`
	// Upcoming are the accepted timed events of the look-ahead window,
	// which ends at LookaheadUntil.
	Upcoming       []upcoming `json:"upcoming,omitempty"`
	LookaheadUntil time.Time  `json:"lookahead_until,omitzero"`
}

// upcoming is an event a reminder may be sent for.
type upcoming struct {
	ID        string    `json:"id"`
	Summary   string    `json:"summary"`
	Start     time.Time `json:"start"`
	StartText string    `json:"start_text"`
	EndText   string    `json:"end_text"`
	Organizer string    `json:"organizer,omitempty"`
	HTMLLink  string    `json:"html_link,omitempty"`
}

type cursorState struct {
	Calendars map[string]*calCursor `json:"calendars"` // "account calendarID" → cursor
	Reminded  map[string]time.Time  `json:"reminded"`  // "account calendarID event start" → the event's start
}

// cursors is the poller's state, kept in a file when a path is set.
type cursors struct {
	path string // "" keeps them in RAM

	mu sync.Mutex // guards st
	st cursorState
}

func loadCursors(dataDir string) (*cursors, error) {
	c := &cursors{st: cursorState{Calendars: map[string]*calCursor{}, Reminded: map[string]time.Time{}}}
	if dataDir == "" {
		return c, nil
	}
	c.path = filepath.Join(dataDir, CursorsFile)
	b, err := os.ReadFile(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("reading the calendar cursors: %w", err)
	}
	if err := json.Unmarshal(b, &c.st); err != nil {
		// A broken file costs one quiet full sync, not the server.
		return c, fmt.Errorf("reading the calendar cursors %s (starting afresh): %w", c.path, err)
	}
	if c.st.Calendars == nil {
		c.st.Calendars = map[string]*calCursor{}
	}
	if c.st.Reminded == nil {
		c.st.Reminded = map[string]time.Time{}
	}
	return c, nil
}

func cursorKey(email, calID string) string { return email + " " + calID }

// get returns a copy of a calendar's cursor (nil: none yet).
func (c *cursors) get(email, calID string) *calCursor {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur := c.st.Calendars[cursorKey(email, calID)]
	if cur == nil {
		return nil
	}
	cp := *cur
	cp.Upcoming = append([]upcoming(nil), cur.Upcoming...)
	return &cp
}

func (c *cursors) set(email, calID string, cur *calCursor) {
	c.mu.Lock()
	c.st.Calendars[cursorKey(email, calID)] = cur
	c.mu.Unlock()
}

// remind reports whether a reminder for key is still to send, and marks
// it sent.
func (c *cursors) remind(key string, start time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, done := c.st.Reminded[key]; done {
		return false
	}
	c.st.Reminded[key] = start
	return true
}

// prune forgets reminders of events that started a day ago.
func (c *cursors) prune(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, start := range c.st.Reminded {
		if now.Sub(start) > 24*time.Hour {
			delete(c.st.Reminded, k)
		}
	}
}

// save writes the file atomically (a temporary file renamed over it).
func (c *cursors) save() error {
	if c.path == "" {
		return nil
	}
	c.mu.Lock()
	b, err := json.MarshalIndent(c.st, "", "  ")
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return fmt.Errorf("saving the calendar cursors: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), CursorsFile+".*")
	if err != nil {
		return fmt.Errorf("saving the calendar cursors: %w", err)
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("saving the calendar cursors: %w", errors.Join(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), c.path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("saving the calendar cursors: %w", err)
	}
	return nil
}
