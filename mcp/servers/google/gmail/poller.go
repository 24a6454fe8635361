package gmail

import (
	"context"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"net/mail"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/mcp/servers/google"
	"github.com/mcptray/mcptray/mcp/stdioserver"
	gm "google.golang.org/api/gmail/v1"
	"google.golang.org/api/option"
)

// MethodNewEmail is the notification the poller sends for each new
// message in an inbox.
const MethodNewEmail = "event/new_email"

// NewEmailNotice is the params of an event/new_email notification.
type NewEmailNotice struct {
	Account   string   `json:"account"`
	MessageID string   `json:"message_id"`
	ThreadID  string   `json:"thread_id"`
	From      string   `json:"from" jsonschema:"the From header, name and address"`
	Subject   string   `json:"subject"`
	Snippet   string   `json:"snippet" jsonschema:"the start of the text, as Gmail shows it"`
	Date      string   `json:"date" jsonschema:"when it was sent, RFC 3339 in the sender's offset"`
	Labels    []string `json:"labels"`
	Title     string   `json:"title" jsonschema:"the desktop notification's text: subject — sender's address"`
}

// PollerOptions configure a Poller. Only Accounts is required.
type PollerOptions struct {
	// Accounts gives the accounts and their authorized clients. When it
	// also has List (as *google.Accounts has), only the accounts granted
	// Gmail are polled; otherwise every account is.
	Accounts google.AccountSource
	// DataDir holds the cursor file (CursorFile, no secrets). "" keeps
	// the cursors in RAM only.
	DataDir string
	// Interval is the time between polls (x-mcptray.google.gmailPoll),
	// default DefaultPoll, at least MinPoll.
	Interval time.Duration
	// Notify sends a notification. Default stdioserver.Notify.
	Notify func(method string, params any) error
	// Logger gets a line when an account's poll fails (once, until it
	// works again) and when a cursor is reset, never a token. Default:
	// discard.
	Logger *slog.Logger
	// Backoff retries rate-limited requests. Default
	// google.DefaultBackoff.
	Backoff google.Backoff
}

// accountLister is what *google.Accounts has besides AccountSource: the
// services each account was granted.
type accountLister interface {
	List() ([]google.Account, error)
}

// Poller announces new mail: every Interval it lists each Gmail
// account's history since its cursor (history.list, messageAdded in
// INBOX) and sends MethodNewEmail for each new message, the cursors kept
// in DataDir so that a restart neither misses nor repeats. An account's
// first poll, and one whose cursor expired (404), records where the
// mailbox stands (users.getProfile) and announces nothing. With no new
// mail a poll is one history.list per account.
type Poller struct {
	o   PollerOptions
	log *slog.Logger
	cur *mailCursors

	pageSize int64 // history records per page: historyPage (tests set less)

	round   sync.Mutex        // held by PollOnce: one round at a time
	failing map[string]string // account ("" the cursor file) → the last error logged; guarded by round
}

// historyPage is the most history records Gmail gives in one page.
const historyPage = 500

// NewPoller returns a Poller. A cursor file it cannot read is logged and
// started afresh; the error is for options it cannot work with.
func NewPoller(o PollerOptions) (*Poller, error) {
	if o.Accounts == nil {
		return nil, errors.New("gmail poller: no accounts given")
	}
	if o.Interval <= 0 {
		o.Interval = DefaultPoll
	}
	o.Interval = max(o.Interval, MinPoll)
	if o.Notify == nil {
		o.Notify = stdioserver.Notify
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Backoff == (google.Backoff{}) {
		o.Backoff = google.DefaultBackoff
	}
	p := &Poller{o: o, log: o.Logger, pageSize: historyPage, failing: map[string]string{}}
	cur, err := loadCursors(o.DataDir)
	if err != nil {
		p.log.Warn("gmail poll", "err", err)
	}
	p.cur = cur
	return p, nil
}

// Interval is the time between polls, after the defaults and the
// minimum.
func (p *Poller) Interval() time.Duration { return p.o.Interval }

// Run polls at once and then every Interval until ctx ends, then returns
// nil.
func (p *Poller) Run(ctx context.Context) error {
	t := time.NewTicker(p.o.Interval)
	defer t.Stop()
	for ctx.Err() == nil {
		p.PollOnce(ctx)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
	}
	return nil
}

// PollOnce polls every Gmail account one time and saves the cursors. An
// account that fails (it must sign in, the network, a rate limit past
// the backoff) is logged and skipped until the next poll; the others go
// on.
func (p *Poller) PollOnce(ctx context.Context) {
	p.round.Lock()
	defer p.round.Unlock()
	emails, err := p.accounts()
	if err != nil {
		p.report("", fmt.Errorf("reading the Google accounts: %w", err))
		return
	}
	for _, email := range emails {
		if ctx.Err() != nil {
			break
		}
		p.report(email, p.poll(ctx, email))
	}
	if ctx.Err() == nil {
		p.cur.keep(emails)
	}
	if err := p.cur.save(); err != nil {
		p.report("", err)
	}
}

// accounts are the accounts to poll: those granted Gmail when the source
// says.
func (p *Poller) accounts() ([]string, error) {
	l, ok := p.o.Accounts.(accountLister)
	if !ok {
		return p.o.Accounts.Emails()
	}
	list, err := l.List()
	if err != nil {
		return nil, err
	}
	var emails []string
	for _, a := range list {
		if a.Has(google.ServiceGmail) {
			emails = append(emails, a.Email)
		}
	}
	return emails, nil
}

// report logs a failing poll once, not every poll (an account waiting
// to sign in again fails until it does), and when it works again.
func (p *Poller) report(email string, err error) {
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
	case err == nil && p.failing[email] != "":
		delete(p.failing, email)
		p.log.Info("gmail poll works again", "account", email)
	case err != nil && p.failing[email] != err.Error():
		p.failing[email] = err.Error()
		p.log.Warn("gmail poll", "account", email, "err", err)
	}
}

// service is the official Gmail client for email's authorized client,
// its requests sent under google.APIURL().
func (p *Poller) service(ctx context.Context, email string) (*gm.Service, error) {
	hc, err := p.o.Accounts.Client(ctx, email)
	if err != nil {
		return nil, err
	}
	return newPollService(ctx, hc)
}

func newPollService(ctx context.Context, hc *http.Client) (*gm.Service, error) {
	svc, err := gm.NewService(ctx, option.WithHTTPClient(hc), option.WithEndpoint(google.APIURL()))
	if err != nil {
		return nil, fmt.Errorf("making the Gmail client: %w", err)
	}
	return svc, nil
}

// poll brings one account's cursor up to date, announcing the new mail
// since it (none on the first poll, nor after the cursor expired).
func (p *Poller) poll(ctx context.Context, email string) error {
	svc, err := p.service(ctx, email)
	if err != nil {
		return err
	}
	cur, ok := p.cur.get(email)
	if !ok {
		return p.reset(ctx, svc, email)
	}
	added, latest, err := p.history(ctx, svc, cur.HistoryID)
	if google.StatusCode(err) == http.StatusNotFound {
		// The historyId is too old (Google keeps about a week): start
		// over from now, announcing nothing old.
		p.log.Info("gmail history expired; polling afresh from now", "account", email)
		return p.reset(ctx, svc, email)
	}
	if err != nil {
		return fmt.Errorf("listing the mailbox's history: %w", err)
	}
	seen := map[string]bool{}
	for _, id := range cur.Announced {
		seen[id] = true
	}
	var done []string // handled this poll: announced, or found not to be
	for _, m := range added {
		if m == nil || m.Id == "" || seen[m.Id] || (len(m.LabelIds) > 0 && !announceable(m.LabelIds)) {
			continue
		}
		seen[m.Id] = true
		n, err := p.message(ctx, svc, email, m.Id)
		if err != nil {
			// Stay on this cursor; the next poll reads the same history
			// again and skips what this one handled.
			cur.Announced = append(cur.Announced, done...)
			p.cur.set(email, cur)
			return fmt.Errorf("reading a new message: %w", err)
		}
		if n != nil {
			p.notify(*n)
		}
		done = append(done, m.Id)
	}
	p.cur.set(email, mailCursor{HistoryID: max(latest, cur.HistoryID)})
	return nil
}

// reset records where email's mailbox stands now.
func (p *Poller) reset(ctx context.Context, svc *gm.Service, email string) error {
	var prof *gm.Profile
	err := p.o.Backoff.Do(ctx, func() (err error) {
		prof, err = svc.Users.GetProfile("me").Context(ctx).Do()
		return err
	})
	if err != nil {
		return fmt.Errorf("reading the mailbox's profile: %w", err)
	}
	if prof.HistoryId == 0 {
		return errors.New("reading the mailbox's profile: Gmail gave no historyId")
	}
	p.cur.set(email, mailCursor{HistoryID: prof.HistoryId})
	return nil
}

// history lists the messages added to INBOX after start, oldest first,
// and the historyId to go on from: the mailbox's when the listing began,
// or the last record's if a later page went past it (Google answers
// every page with the mailbox's current historyId, which may be past
// records still to be listed).
func (p *Poller) history(ctx context.Context, svc *gm.Service, start uint64) (added []*gm.Message, latest uint64, err error) {
	token := ""
	for {
		var page *gm.ListHistoryResponse
		err := p.o.Backoff.Do(ctx, func() (err error) {
			call := svc.Users.History.List("me").Context(ctx).StartHistoryId(start).
				HistoryTypes("messageAdded").LabelId("INBOX").MaxResults(p.pageSize)
			if token != "" {
				call = call.PageToken(token)
			}
			page, err = call.Do()
			return err
		})
		if err != nil {
			return nil, 0, err
		}
		if token == "" {
			latest = page.HistoryId
		}
		for _, h := range page.History {
			if h.Id != 0 && h.Id <= start {
				continue // handled by the poll that moved the cursor here
			}
			latest = max(latest, h.Id)
			for _, a := range h.MessagesAdded {
				added = append(added, a.Message)
			}
		}
		if page.NextPageToken == "" || page.NextPageToken == token {
			return added, latest, nil
		}
		token = page.NextPageToken
	}
}

// message reads a new message's metadata; nil when it is not to be
// announced after all (deleted, a draft, no longer in the inbox).
func (p *Poller) message(ctx context.Context, svc *gm.Service, email, id string) (*NewEmailNotice, error) {
	var m *gm.Message
	err := p.o.Backoff.Do(ctx, func() (err error) {
		m, err = svc.Users.Messages.Get("me", id).Context(ctx).
			Format("metadata").MetadataHeaders("From", "Subject", "Date").Do()
		return err
	})
	if google.StatusCode(err) == http.StatusNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !announceable(m.LabelIds) {
		return nil, nil
	}
	n := newEmailNotice(email, m)
	return &n, nil
}

// announceable says whether a message with labels is new mail to announce:
// in the inbox, and not a draft. What we sent ourselves (SENT without
// INBOX) is not; a message to ourselves is.
func announceable(labels []string) bool {
	return slices.Contains(labels, "INBOX") && !slices.Contains(labels, "DRAFT")
}

func (p *Poller) notify(n NewEmailNotice) {
	if err := p.o.Notify(MethodNewEmail, n); err != nil {
		p.log.Warn("sending a new-mail event", "account", n.Account, "err", err)
	}
}

// newEmailNotice is the params announcing m (read with format=metadata).
func newEmailNotice(email string, m *gm.Message) NewEmailNotice {
	from, subject, date := metaHeader(m, "From"), metaHeader(m, "Subject"), metaHeader(m, "Date")
	labels := m.LabelIds
	if labels == nil {
		labels = []string{}
	}
	return NewEmailNotice{
		Account:   email,
		MessageID: m.Id,
		ThreadID:  m.ThreadId,
		From:      from,
		Subject:   subject,
		Snippet:   html.UnescapeString(m.Snippet),
		Date:      noticeDate(date, m.InternalDate),
		Labels:    labels,
		Title:     noticeTitle(subject, from),
	}
}

// metaHeader is the value of m's first header name ("" when none).
func metaHeader(m *gm.Message, name string) string {
	if m.Payload == nil {
		return ""
	}
	for _, h := range m.Payload.Headers {
		if h != nil && strings.EqualFold(h.Name, name) {
			return strings.TrimSpace(h.Value)
		}
	}
	return ""
}

// titleSubject is the most of a subject a title keeps, so that the
// sender's address still shows in a desktop notification (the app keeps
// 120 characters of "gmail: " + title).
const titleSubject = 72

// noticeTitle is what the desktop notification shows: "Lunch? —
// ada@example.com", the subject (its start, when long) and the sender's
// address.
func noticeTitle(subject, from string) string {
	subject = strings.Join(strings.Fields(subject), " ")
	if subject == "" {
		subject = "(no subject)"
	}
	if r := []rune(subject); len(r) > titleSubject {
		subject = strings.TrimSpace(string(r[:titleSubject-1])) + "…"
	}
	sender := from
	if a, err := mail.ParseAddress(from); err == nil {
		sender = a.Address
	} else if list, err := mail.ParseAddressList(from); err == nil && len(list) > 0 {
		sender = list[0].Address
	}
	if sender == "" {
		return subject
	}
	return subject + " — " + sender
}

// noticeDate is when a message was sent, RFC 3339: its Date header in the
// sender's offset, else Gmail's internalDate (milliseconds since the
// epoch) in UTC; "" when neither is known.
func noticeDate(header string, internalMillis int64) string {
	if t, err := mail.ParseDate(header); err == nil {
		return t.Format(time.RFC3339)
	}
	if internalMillis > 0 {
		return time.UnixMilli(internalMillis).UTC().Format(time.RFC3339)
	}
	return ""
}
