package trust

import (
	"context"
	"sync"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/store"
)

// Launches are the approved launches of the entries.
type Launches struct {
	o  Options
	wg sync.WaitGroup // the reset question's goroutine (askReset)

	mu       sync.Mutex                      // guards the fields below
	approved map[string]store.LaunchApproval // by server
	seeded   bool                            // the first start's approvals are recorded
	// resetDone, while the one request after a reset waits (askReset), is
	// closed when it is answered: the entries wait for it before they ask
	// one by one.
	resetDone chan struct{}
	trust     bool // x-mcptray.trustConfigEdits or Options.TrustEdits
}

// Waiter is a server waiting for the person's yes before it runs
// (WaitApproval); it is called with no lock of trust's held.
type Waiter interface {
	// NeedsApproval puts the server in state needs-approval, with detail.
	NeedsApproval(detail string)
	// Log writes a lifecycle line in the server's log.
	Log(text string)
	// Pending records what the server would run while it waits (nil: it
	// no longer waits), for the person's `mcptray approve`.
	Pending(l *config.Launch)
	// Approvals receives when an approval of the entry was recorded
	// elsewhere (`mcptray approve`).
	Approvals() <-chan struct{}
}

// NewLaunches returns the approved launches, empty until Load. It uses
// o.Store, o.Log, o.Ask, o.Timeout, o.Marks, o.DataDir, o.ConfigPath,
// o.NoticeServer, o.TrustEdits and o.Env.
func NewLaunches(o Options) *Launches {
	return &Launches{o: o, approved: map[string]store.LaunchApproval{}}
}

// Load reads the approved launches (at start).
func (ls *Launches) Load(ctx context.Context) {
	approved, err := ls.o.Store.LaunchApprovals(ctx)
	if err != nil {
		ls.o.Log.Warn("reading approved launches: every entry will ask", "err", err)
		approved = map[string]store.LaunchApproval{}
	}
	_, seeded, err := ls.o.Store.Flag(ctx, seededFlag)
	if err != nil {
		ls.o.Log.Warn("reading the first-start flag", "err", err)
		seeded = true // never approve what may be new without asking
	}
	ls.mu.Lock()
	ls.approved, ls.seeded = approved, seeded
	ls.mu.Unlock()
	if seeded {
		ls.ensureInstallMark() // an install from before the marker: mark it now
	}
}

// Close waits for the goroutine of the reset question, which ends with
// the context given to Check. Call it after that context ended.
func (ls *Launches) Close() { ls.wg.Wait() }

// Approved is the launch approved for server (zero: none).
func (ls *Launches) Approved(server string) store.LaunchApproval {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.approved[server]
}

// Restore writes into a reopened store what this process knows: the
// approved launches and the first start's flag.
func (ls *Launches) Restore() {
	ls.mu.Lock()
	approved := make([]store.LaunchApproval, 0, len(ls.approved))
	for _, a := range ls.approved {
		approved = append(approved, a)
	}
	seeded := ls.seeded
	ls.mu.Unlock()
	for _, a := range approved {
		if err := ls.o.Store.ApproveLaunch(context.Background(), a); err != nil {
			ls.o.Log.Warn("restoring an approval", "server", a.Server, "err", err)
		}
	}
	if seeded {
		if err := ls.o.Store.SetFlag(context.Background(), seededFlag, time.Now().UTC().Format(time.RFC3339)); err != nil {
			ls.o.Log.Warn("restoring the first start's flag", "err", err)
		}
	}
}
