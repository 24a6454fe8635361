package events

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// Notifier shows desktop notifications. The UI implements it (ui.Notifier,
// over org.freedesktop.Notifications on Linux); the hub calls Notify from
// one goroutine of its own, never from a server's read loop, so a slow
// Notify delays only other notifications.
type Notifier interface {
	Notify(Notification)
}

// Notification is one desktop notification about events.
type Notification struct {
	Server string // the server the events came from
	Title  string // "<server>: <title>" or "N new events from <server>"
	Body   string // at most maxNotifyBody characters; may be ""
	Events int    // how many events it stands for: 1, or N when coalesced
	LastID int64  // the id of the newest event it stands for
}

// Notification limits.
const (
	notifyInterval = 10 * time.Second // at most one notification per server per interval
	maxNotifyTitle = 120              // characters of a title
	maxNotifyBody  = 200              // characters of a body
	notifyQueue    = 64               // notifications waiting for the Notifier; more are dropped
)

// eventText is the title (without the server) and body a notification
// shows for an event: the first string among params.title, subject and
// summary, else the method; the first string among body, snippet, from
// and description.
func eventText(method string, params json.RawMessage) (title, body string) {
	var p map[string]json.RawMessage
	json.Unmarshal(params, &p)
	str := func(keys ...string) string {
		for _, k := range keys {
			var s string
			if json.Unmarshal(p[k], &s) == nil && strings.TrimSpace(s) != "" {
				return s
			}
		}
		return ""
	}
	title = str("title", "subject", "summary")
	if title == "" {
		title = method
	}
	return oneLineText(title, maxNotifyTitle), cleanText(str("body", "snippet", "from", "description"), maxNotifyBody)
}

// oneLineText collapses whitespace and control characters to single
// spaces and trims to max characters.
func oneLineText(s string, max int) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	return trimText(s, max)
}

// cleanText drops control characters but line breaks, trims the ends and
// trims to max characters.
func cleanText(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\t' || r == '\r':
			return ' '
		case unicode.IsControl(r) || r == utf8.RuneError:
			return -1
		}
		return r
	}, s)
	return trimText(strings.TrimSpace(s), max)
}

// trimText cuts s to at most max characters, the last being "…" when cut.
func trimText(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return strings.TrimRightFunc(string(r[:max-1]), unicode.IsSpace) + "…"
}

// coalescer turns stored events into notifications: the first event of a
// server notifies at once; later ones within notifyInterval of the last
// notification are counted and shown as one "N new events from <server>"
// when the interval is over.
type coalescer struct {
	interval time.Duration
	out      chan Notification // to the goroutine that calls the Notifier

	mu      sync.Mutex
	servers map[string]*serverNotes // guarded by mu
	stopped bool                    // guarded by mu
}

// serverNotes is one server's notification state.
type serverNotes struct {
	last    time.Time   // when its last notification went out
	pending int         // events since then, not yet shown
	latest  eventNote   // the newest of them
	timer   *time.Timer // fires when pending events may be shown; nil if none wait
}

// eventNote is what a notification needs of an event.
type eventNote struct {
	id             int64
	server, method string
	params         json.RawMessage
}

func newCoalescer(interval time.Duration) *coalescer {
	return &coalescer{interval: interval, out: make(chan Notification, notifyQueue), servers: map[string]*serverNotes{}}
}

// add takes one stored event. It never blocks.
func (c *coalescer) add(e eventNote) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return
	}
	sn := c.servers[e.server]
	if sn == nil {
		sn = &serverNotes{}
		c.servers[e.server] = sn
	}
	now := time.Now()
	if sn.pending == 0 && (sn.last.IsZero() || now.Sub(sn.last) >= c.interval) {
		sn.last = now
		c.send(single(e))
		return
	}
	sn.pending++
	sn.latest = e
	if sn.timer == nil {
		server := e.server
		sn.timer = time.AfterFunc(sn.last.Add(c.interval).Sub(now), func() { c.flush(server) })
	}
}

// flush shows a server's pending events.
func (c *coalescer) flush(server string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sn := c.servers[server]
	if c.stopped || sn == nil || sn.pending == 0 {
		return
	}
	n, e := sn.pending, sn.latest
	sn.pending, sn.timer, sn.last = 0, nil, time.Now()
	if n == 1 {
		c.send(single(e))
		return
	}
	title, _ := eventText(e.method, e.params)
	c.send(Notification{
		Server: server,
		Title:  oneLineText(fmt.Sprintf("%d new events from %s", n, server), maxNotifyTitle),
		Body:   trimText("Latest: "+title, maxNotifyBody),
		Events: n,
		LastID: e.id,
	})
}

// send queues n for the Notifier; a full queue drops it (a notification
// is a courtesy; the events are stored). Called with mu held.
func (c *coalescer) send(n Notification) {
	select {
	case c.out <- n:
	default:
	}
}

// stop drops pending events, stops the timers and ends deliver; add does
// nothing after.
func (c *coalescer) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return
	}
	c.stopped = true
	for _, sn := range c.servers {
		if sn.timer != nil {
			sn.timer.Stop()
		}
	}
	close(c.out) // every send happens under mu after a check of stopped
}

// single is the notification of one event.
func single(e eventNote) Notification {
	title, body := eventText(e.method, e.params)
	return Notification{
		Server: e.server,
		Title:  oneLineText(e.server+": "+title, maxNotifyTitle),
		Body:   body,
		Events: 1,
		LastID: e.id,
	}
}

// deliver calls the Notifier with each queued notification until the
// queue is closed.
func (c *coalescer) deliver(n Notifier) {
	for note := range c.out {
		n.Notify(note)
	}
}
