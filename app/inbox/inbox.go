package inbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/mcptray/mcptray/mcp"
	"github.com/mcptray/mcptray/store"
)

// Sources of inbox requests.
const (
	SourceServer    = "server"     // elicitation/create (also input_required, which the SDK turns into one)
	SourceToolError = "tool-error" // a URL from a tool call's URLElicitationRequired error: nobody waits for the answer
	SourceConfig    = "config"     // a ${input:ID} of mcp.json
	// SourceMcptray: the requests mcptray itself puts to the person
	// (approvals of calls and launches, tool changes).
	SourceMcptray = "mcptray"
)

// Kinds of inbox requests: what the person is asked.
const (
	KindElicitation = "elicitation" // a server's question (form or URL)
	KindInput       = "input"       // a ${input:ID} of mcp.json
	KindApproval    = "approval"    // a tool call waits for a yes (CallApproval)
	// KindLaunch: a new or changed entry waits for a yes (LaunchApproval).
	KindLaunch = "launch"
	// KindLaunchReset: mcptray's records were reset; every entry waits
	// for one yes to them all (LaunchReset).
	KindLaunchReset = "launch-reset"
	// KindToolChange: a pinned tool's description changed (ToolChange).
	KindToolChange = "tool-change"
	// KindSignIn: a remote server wants the person to sign in (OAuth);
	// accept starts the sign-in in the browser, decline leaves the server
	// waiting (SignIn says where).
	KindSignIn = "sign-in"
)

// Scopes of a yes to an approval (Answer.Scope).
const (
	ScopeOnce    = "once"    // this call (the default)
	ScopeSession = "session" // this tool, for the rest of this assistant session
	ScopeAlways  = "always"  // this tool, from now on: written to the entry's x-mcptray.allowTools
)

// Answer actions.
const (
	ActionAccept  = "accept"
	ActionDecline = "decline"
	ActionCancel  = "cancel"
)

// Who closed a request, besides the answering front-end's own name (Answer.By:
// "cli", "ui", …).
const (
	ClosedByDeadline = "deadline" // the inbox timeout passed
	ClosedByServer   = "server"   // the server withdrew the request or went away
	ClosedByComplete = "complete" // the server said the URL elicitation is complete
	// ClosedByFull: refused at once, its server had
	// MaxPendingPerServer requests waiting already.
	ClosedByFull = "inbox-full"
)

// Inbox limits (README "Secret inbox").
const (
	// MaxPendingPerServer is how many requests of one server may wait at
	// once; more are answered cancel at once (and audited, and counted in
	// status as inboxRefused).
	MaxPendingPerServer = 32
	// MaxMessage, MaxSchema and MaxFields bound a server's request: one
	// with a longer message, a bigger requested schema or more fields is
	// answered cancel without reaching the inbox (its asker checks), and
	// the server's log says why.
	MaxMessage = 16 << 10 // bytes
	MaxSchema  = 64 << 10 // bytes of the requested schema's JSON
	MaxFields  = 64
)

// Request is one pending request. It never holds a typed value.
type Request struct {
	ID string `json:"id"`
	// Kind is what is asked: elicitation, input or approval.
	Kind    string `json:"kind"`
	Server  string `json:"server"`
	Tool    string `json:"tool,omitempty"`   // the tool call it belongs to (the server's own tool name), if any
	Client  string `json:"client,omitempty"` // the assistant that made that call, if known
	Source  string `json:"source"`           // server, tool-error or config
	Input   string `json:"input,omitempty"`  // the input id, for source config
	Message string `json:"message"`
	Mode    string `json:"mode"` // form or url
	// URL and Host are set in url mode: show both, the host prominently.
	URL  string `json:"url,omitempty"`
	Host string `json:"host,omitempty"`
	// Confirm is set for a form without fields: a yes/no question.
	Confirm bool `json:"confirm,omitempty"`
	// AcceptLabel, for a yes/no request, is what the server asks its
	// accept button to say ("Send"); Cancel then declines. "" for Accept,
	// Decline and Cancel.
	AcceptLabel string  `json:"acceptLabel,omitempty"`
	Fields      []Field `json:"fields"`
	// Approval details a tool call that waits (kind approval): answer it
	// accept (with a Scope) or decline.
	Approval *CallApproval `json:"approval,omitempty"`
	// Launch details a new or changed entry that waits (kind launch):
	// accept allows it to run, decline leaves it waiting.
	Launch *LaunchApproval `json:"launch,omitempty"`
	// Reset lists the entries that wait after mcptray's records were reset
	// (kind launch-reset): accept approves them all, decline lets the
	// person choose one by one (each then asks as kind launch).
	Reset *LaunchReset `json:"reset,omitempty"`
	// ToolChange shows how a pinned tool changed (kind tool-change):
	// accept pins the new version, decline keeps it held back.
	ToolChange *ToolChange `json:"toolChange,omitempty"`
	// SignIn says where the person is asked to sign in (kind sign-in).
	SignIn   *SignIn   `json:"signIn,omitempty"`
	Created  time.Time `json:"created"`
	Deadline time.Time `json:"deadline"`
}

// Answer is a person's answer to a request.
type Answer struct {
	Action string `json:"action"` // accept, decline or cancel
	// Content holds the form's values by field name (accept only). A value
	// may be typed (string, float64, int, bool, []string) or a string that
	// Field.Parse reads by the field's type. Fields left out take their
	// defaults.
	Content map[string]any `json:"content,omitempty"`
	By      string         `json:"by,omitempty"` // who answers, for the audit: "cli", "ui", …
	// Scope is how far a yes to an approval reaches: once (the default),
	// session or always. Only an approval takes one.
	Scope string `json:"scope,omitempty"`
}

// EventKind says what happened to a request.
type EventKind string

// Inbox event kinds.
const (
	Added     EventKind = "added"     // a new request waits
	Closed    EventKind = "closed"    // answered, timed out or withdrawn: take it off the screen
	Completed EventKind = "completed" // the server says a URL request answered earlier is done
)

// Event is published to Subscribe's subscribers.
type Event struct {
	Kind    EventKind `json:"kind"`
	Request Request   `json:"request"`
	Outcome string    `json:"outcome,omitempty"` // closed: accept, decline, cancel or timeout
	By      string    `json:"by,omitempty"`      // closed: cli, ui, deadline, server, complete, …
}

// ErrRequestClosed is wrapped by Answer for a request that is not open:
// already answered, timed out, withdrawn, or never there.
var ErrRequestClosed = errors.New("the request is not open")

// Inbox is the set of pending requests. Make one with New.
type Inbox struct {
	log      *slog.Logger
	audit    *AuditLog // nil: no audit rows
	openURL  func(string) error
	refused  func(server string, first bool)
	relieved func(server string, refused int)

	mu        sync.Mutex
	pending   map[string]*pending   // guarded by mu: open requests by id
	perServer map[string]int        // guarded by mu: how many of pending each server has
	full      map[string]int        // guarded by mu: servers at MaxPendingPerServer, with the requests refused since
	closed    map[string]closedNote // guarded by mu: recently closed ones, for "already answered"
	order     []string              // guarded by mu: ids in closed, oldest first (bounded)
	subs      map[*sub]struct{}     // guarded by mu
	urls      map[urlKey]*Request   // guarded by mu: accepted URL requests awaiting completion
}

// pending is one open request.
type pending struct {
	req           Request
	elicitationID string
	done          chan Result // cap 1: the one result, sent by whoever closes it
	timer         *time.Timer
}

// Result is how a request ended, as Ask returns it to the asker.
type Result struct {
	// Reply is what goes back to the requesting server: the action, and
	// a form's checked values (accept only).
	Reply   *mcp.ElicitResult
	Outcome string // accept, decline, cancel or timeout
	By      string // who closed it: cli, ui, deadline, server, complete, inbox-full, …
	Scope   string // an approval's accept: once, session or always
}

type closedNote struct{ outcome, by string }

type urlKey struct{ server, id string }

// maxClosedNotes bounds the memory of closed requests.
const maxClosedNotes = 200

// Options configure an Inbox.
type Options struct {
	Log   *slog.Logger
	Audit *AuditLog // where closed requests are audited; nil: nowhere
	// OpenURL opens an accepted URL request's URL in the browser; nil:
	// nothing is opened.
	OpenURL func(string) error
	// Refused, when set, is called outside the inbox's lock for every
	// request refused because its server has MaxPendingPerServer waiting;
	// first is set for the first one since they reached it.
	Refused func(server string, first bool)
	// Relieved, when set, is called outside the inbox's lock when such a
	// server's requests drop below MaxPendingPerServer, with how many were
	// refused meanwhile.
	Relieved func(server string, refused int)
}

// New returns an empty inbox.
func New(opts Options) *Inbox {
	return &Inbox{
		log: opts.Log, audit: opts.Audit, openURL: opts.OpenURL,
		refused: opts.Refused, relieved: opts.Relieved,
		pending:   map[string]*pending{},
		perServer: map[string]int{},
		full:      map[string]int{},
		closed:    map[string]closedNote{},
		subs:      map[*sub]struct{}{},
		urls:      map[urlKey]*Request{},
	}
}

// List returns the open requests, oldest first.
func (ib *Inbox) List() []Request {
	ib.mu.Lock()
	defer ib.mu.Unlock()
	return ib.listLocked()
}

func (ib *Inbox) listLocked() []Request {
	out := make([]Request, 0, len(ib.pending))
	for _, p := range ib.pending {
		out = append(out, p.req)
	}
	slices.SortFunc(out, func(a, b Request) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return compareStrings(a.ID, b.ID)
	})
	return out
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Ask puts req in the inbox and waits for its result: an answer, the
// timeout, or ctx ending (the server withdrew it or went away). When its
// server has MaxPendingPerServer requests waiting already, it is answered
// cancel at once.
func (ib *Inbox) Ask(ctx context.Context, req Request, elicitationID string, timeout time.Duration) Result {
	// A request whose server went away before it got here (the rest of a
	// burst still on its way when the session ended) never enters the
	// inbox: it would take the place of a live one and be closed at once.
	if ctx.Err() != nil {
		return ib.closeUnshown(req, ClosedByServer)
	}
	p := ib.add(req, elicitationID, timeout)
	if p == nil {
		return ib.closeUnshown(req, ClosedByFull)
	}
	select {
	case r := <-p.done:
		return r
	case <-ctx.Done():
		ib.close(p.req.ID, Result{Reply: &mcp.ElicitResult{Action: ActionCancel}, Outcome: store.OutcomeCancel, By: ClosedByServer})
		return <-p.done // ours, or an answer that won the race
	}
}

// closeUnshown answers cancel to a request that never entered the inbox,
// closed by by, and writes its audit row.
func (ib *Inbox) closeUnshown(req Request, by string) Result {
	now := time.Now().UTC()
	req.Created = now
	r := Result{Reply: &mcp.ElicitResult{Action: ActionCancel}, Outcome: store.OutcomeCancel, By: by}
	ib.record(req, r, now)
	return r
}

// add registers a request and publishes it. It returns nil, publishing
// nothing, when the request's server has MaxPendingPerServer waiting.
func (ib *Inbox) add(req Request, elicitationID string, timeout time.Duration) *pending {
	now := time.Now().UTC()
	req.Created, req.Deadline = now, now.Add(timeout)
	if req.Fields == nil {
		req.Fields = []Field{}
	}
	p := &pending{elicitationID: elicitationID, done: make(chan Result, 1)}
	ib.mu.Lock()
	if ib.perServer[req.Server] >= MaxPendingPerServer {
		n, burst := ib.full[req.Server]
		ib.full[req.Server] = n + 1
		ib.mu.Unlock()
		if ib.refused != nil {
			ib.refused(req.Server, !burst)
		}
		return nil
	}
	ib.perServer[req.Server]++
	for {
		req.ID = newRequestID()
		if _, dup := ib.pending[req.ID]; !dup {
			if _, dup := ib.closed[req.ID]; !dup {
				break
			}
		}
	}
	p.req = req
	ib.pending[req.ID] = p
	p.timer = time.AfterFunc(timeout, func() {
		ib.close(req.ID, Result{Reply: &mcp.ElicitResult{Action: ActionCancel}, Outcome: store.OutcomeTimeout, By: ClosedByDeadline})
	})
	ib.publishLocked(Event{Kind: Added, Request: req})
	ib.mu.Unlock()
	ib.log.Info("inbox: request waiting", "id", req.ID, "server", req.Server, "tool", req.Tool, "mode", req.Mode, "source", req.Source)
	return p
}

// newRequestID is a short random id a person can type.
func newRequestID() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// close ends an open request with r; false if it was not open. The audit
// row is written after the request leaves the inbox.
func (ib *Inbox) close(id string, r Result) bool {
	ib.mu.Lock()
	p, ok := ib.pending[id]
	if !ok {
		ib.mu.Unlock()
		return false
	}
	delete(ib.pending, id)
	server := p.req.Server
	ib.perServer[server]--
	if ib.perServer[server] <= 0 {
		delete(ib.perServer, server)
	}
	refused, relieved := ib.full[server]
	if relieved {
		delete(ib.full, server) // below the limit again
	}
	p.timer.Stop()
	ib.closed[id] = closedNote{r.Outcome, r.By}
	ib.order = append(ib.order, id)
	if len(ib.order) > maxClosedNotes {
		delete(ib.closed, ib.order[0])
		ib.order = ib.order[1:]
	}
	if p.req.Mode == "url" && r.Outcome == store.OutcomeAccept && p.elicitationID != "" && r.By != ClosedByComplete {
		req := p.req
		if len(ib.urls) >= maxClosedNotes {
			for k := range ib.urls { // a completion that never came: forget one
				delete(ib.urls, k)
				break
			}
		}
		ib.urls[urlKey{req.Server, p.elicitationID}] = &req
	}
	p.done <- r
	ib.publishLocked(Event{Kind: Closed, Request: p.req, Outcome: r.Outcome, By: r.By})
	ib.mu.Unlock()

	ib.log.Info("inbox: request closed", "id", id, "server", p.req.Server, "outcome", r.Outcome, "by", r.By)
	if relieved && ib.relieved != nil {
		ib.relieved(server, refused)
	}
	ib.record(p.req, r, time.Now())
	return true
}

// record queues the audit row of a request that closed with r.
func (ib *Inbox) record(req Request, r Result, closed time.Time) {
	if ib.audit == nil {
		return
	}
	names := make([]string, len(req.Fields))
	for i, f := range req.Fields {
		names[i] = f.Name
	}
	mode := req.Mode
	switch {
	case req.Source == SourceConfig:
		mode = "input"
	case req.Kind != KindElicitation && req.Kind != "":
		mode = req.Kind
	}
	ib.audit.add(store.Elicitation{
		Server: req.Server, Tool: req.Tool, Mode: mode, Message: req.Message, Fields: names,
		Outcome: r.Outcome, ClosedBy: r.By, Created: req.Created, Closed: closed,
	})
}

// CloseAll closes every open request with r.
func (ib *Inbox) CloseAll(r Result) {
	ib.mu.Lock()
	ids := make([]string, 0, len(ib.pending))
	for id := range ib.pending {
		ids = append(ids, id)
	}
	ib.mu.Unlock()
	for _, id := range ids {
		ib.close(id, r)
	}
}

// Answer checks a and closes the request with it.
func (ib *Inbox) Answer(id string, a Answer) error {
	ib.mu.Lock()
	p, ok := ib.pending[id]
	var note closedNote
	if !ok {
		note, ok = ib.closed[id]
		ib.mu.Unlock()
		if ok {
			return fmt.Errorf("request %s was already closed (%s, by %s): %w", id, note.outcome, note.by, ErrRequestClosed)
		}
		return fmt.Errorf("no open request %s in the inbox: %w", id, ErrRequestClosed)
	}
	req := p.req
	ib.mu.Unlock()

	by := a.By
	if by == "" {
		by = "api"
	}
	r := Result{Outcome: a.Action, By: by}
	switch {
	case a.Scope != "" && req.Kind != KindApproval:
		return &InvalidAnswerError{Reason: "only a tool call's approval takes a scope (once, session or always)"}
	case a.Scope != "" && a.Action != ActionAccept:
		return &InvalidAnswerError{Reason: "a scope (once, session or always) goes with accepting"}
	case a.Scope != "" && a.Scope != ScopeOnce && a.Scope != ScopeSession && a.Scope != ScopeAlways:
		return &InvalidAnswerError{Reason: fmt.Sprintf("scope must be once, session or always, got %q", a.Scope)}
	}
	r.Scope = a.Scope
	switch a.Action {
	case ActionAccept:
		content := map[string]any{}
		if req.Mode == "form" {
			var err error
			if content, err = answerContent(req.Fields, a.Content); err != nil {
				return err
			}
		} else if len(a.Content) > 0 {
			return &InvalidAnswerError{Reason: "a URL request takes no values: accept, decline or cancel"}
		} else if err := checkOpenable(req.URL); err != nil {
			return err
		}
		r.Reply = &mcp.ElicitResult{Action: ActionAccept, Content: content}
		if req.Mode == "url" {
			r.Reply.Content = nil
		}
	case ActionDecline, ActionCancel:
		r.Reply = &mcp.ElicitResult{Action: a.Action}
	default:
		return &InvalidAnswerError{Reason: fmt.Sprintf("action must be accept, decline or cancel, got %q", a.Action)}
	}
	if !ib.close(id, r) {
		return ib.Answer(id, a) // closed meanwhile: say by whom
	}
	if req.Mode == "url" && a.Action == ActionAccept && ib.openURL != nil {
		if err := ib.openURL(req.URL); err != nil {
			ib.log.Warn("inbox: opening the URL in a browser", "server", req.Server, "host", req.Host, "err", err)
		}
	}
	return nil
}

// checkOpenable refuses URLs mcptray will not hand to a browser.
func checkOpenable(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return &InvalidAnswerError{Reason: "mcptray opens only http and https URLs: decline or cancel this request"}
	}
	return nil
}

// Complete handles a server's notifications/elicitation/complete: an open
// request with that elicitation id closes (accepted: the server says the
// person did it); one accepted earlier is announced as completed.
func (ib *Inbox) Complete(server, elicitationID string) {
	ib.mu.Lock()
	var openID string
	for id, p := range ib.pending {
		if p.req.Server == server && p.elicitationID == elicitationID {
			openID = id
			break
		}
	}
	if openID == "" {
		key := urlKey{server, elicitationID}
		if req := ib.urls[key]; req != nil {
			delete(ib.urls, key)
			ib.publishLocked(Event{Kind: Completed, Request: *req})
		}
		ib.mu.Unlock()
		return
	}
	ib.mu.Unlock()
	ib.close(openID, Result{Reply: &mcp.ElicitResult{Action: ActionAccept}, Outcome: store.OutcomeAccept, By: ClosedByComplete})
}

// sub is one subscriber: an unbounded queue drained into out by its
// own goroutine, so publishing never blocks and no event is dropped.
type sub struct {
	out    chan Event
	wake   chan struct{} // cap 1
	stop   chan struct{} // closed by cancel
	mu     sync.Mutex    // guards queue
	queue  []Event
	cancel sync.Once
}

// Subscribe returns a channel of events, starting with an Added for
// every open request, and a cancel func (the channel is closed after it).
func (ib *Inbox) Subscribe() (<-chan Event, func()) {
	s := &sub{out: make(chan Event), wake: make(chan struct{}, 1), stop: make(chan struct{})}
	ib.mu.Lock()
	for _, r := range ib.listLocked() {
		s.queue = append(s.queue, Event{Kind: Added, Request: r})
	}
	ib.subs[s] = struct{}{}
	ib.mu.Unlock()
	go s.run()
	// A request published since the unlock may have filled the one-slot
	// wake already, and run may be waiting to hand it over to a caller
	// who has not got the channel yet: a blocking send here would hang.
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return s.out, func() {
		s.cancel.Do(func() {
			ib.mu.Lock()
			delete(ib.subs, s)
			ib.mu.Unlock()
			close(s.stop)
		})
	}
}

func (s *sub) run() {
	defer close(s.out)
	for {
		s.mu.Lock()
		var ev Event
		have := len(s.queue) > 0
		if have {
			ev = s.queue[0]
			s.queue = s.queue[1:]
		}
		s.mu.Unlock()
		if !have {
			select {
			case <-s.wake:
				continue
			case <-s.stop:
				return
			}
		}
		select {
		case s.out <- ev:
		case <-s.stop:
			return
		}
	}
}

// publishLocked queues ev for every subscriber. Called with ib.mu held.
func (ib *Inbox) publishLocked(ev Event) {
	for s := range ib.subs {
		s.mu.Lock()
		s.queue = append(s.queue, ev)
		s.mu.Unlock()
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}
