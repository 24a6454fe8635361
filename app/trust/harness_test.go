package trust

import (
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/store"
)

// kit is the trust layer's surroundings in a test: a real store in a temp
// dir, a real inbox, and the core's callbacks recorded.
type kit struct {
	opts   Options
	inbox  *inbox.Inbox
	events <-chan inbox.Event // the inbox's, subscribed before anything asks

	mu    sync.Mutex
	lines []string // the servers' log lines, "server: text"
	marks map[string]string
}

func newKit(t *testing.T) *kit {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "mcptray.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	k := &kit{inbox: inbox.New(inbox.Options{Log: log}), marks: map[string]string{}}
	events, stop := k.inbox.Subscribe()
	t.Cleanup(stop)
	k.events = events
	key, err := LoadLaunchKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	note := func(server, text string) {
		k.mu.Lock()
		k.lines = append(k.lines, server+": "+text)
		k.mu.Unlock()
	}
	k.opts = Options{
		Store: st, Log: log, Ask: k.inbox,
		Timeout:      func() time.Duration { return time.Minute },
		Lifecycle:    note,
		InboxLog:     note,
		Marks:        k,
		DataDir:      dir,
		ConfigPath:   filepath.Join(dir, "mcp.json"),
		NoticeServer: "mcptray",
		Env:          func() config.Env { return config.Env{Home: dir, LaunchKey: key} },
		Released:     func(string, map[string]string) {},
		Mode:         func(string) string { return config.ApproveAll },
		AllowTool:    func(string, string) error { return nil },
	}
	return k
}

// Get and Set are the install marks, kept in memory (the OS keyring's
// part is tested in app with a real Secret Service).
func (k *kit) Get(name string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.marks[name]
	if !ok {
		return "", keyring.ErrNotFound
	}
	return v, nil
}

func (k *kit) Set(name, value string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.marks[name] = value
	return nil
}

// logged reports whether a server's log has line.
func (k *kit) logged(line string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, l := range k.lines {
		if l == line {
			return true
		}
	}
	return false
}

// answer waits for the inbox's next request of kind and answers it. The
// subscription is made before anything asks: inbox.Subscribe can block
// when a request is published while it subscribes (its goroutine waits to
// hand the request to a caller that waits, in Subscribe, to wake it).
func (k *kit) answer(t *testing.T, kind string, a inbox.Answer) inbox.Request {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev := <-k.events:
			if ev.Kind != inbox.Added || ev.Request.Kind != kind {
				continue
			}
			if err := k.inbox.Answer(ev.Request.ID, a); err != nil {
				t.Fatalf("answering %s: %v", kind, err)
			}
			return ev.Request
		case <-deadline:
			t.Fatalf("no request of kind %s in the inbox", kind)
			return inbox.Request{}
		}
	}
}
