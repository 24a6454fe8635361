//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/store"
)

// The inbox's limits (README "Secret inbox").
const (
	inboxCapPerServer = 32
	stormRequests     = 6000
	// stormRSSLimit bounds the daemon's RSS after the storm. Before the
	// fix, 6000 requests took a database connection each (a page cache
	// each): 2.8 GiB under -race. After it: ≈ 180 MiB under -race.
	stormRSSLimit = 400 << 20
)

// An elicitation storm: a server sends thousands of secret requests at
// once, then exits. The inbox keeps 32, answers the rest cancel at once
// (counted in status, said once in the logs), every request gets its audit
// row, the database's descriptors come back to where they were, and
// another server answers meanwhile.
func TestInboxStorm(t *testing.T) {
	in := startDaemon(t, map[string]any{"ask": fakeEntry(t, "asker"), "echo": fakeEntry(t, "echo")})
	in.WaitFor("ready", states("ask", "ready", "echo", "ready"))
	pid := in.Cmd.Process.Pid
	db := filepath.Join(in.Data, "mcptray.db")
	a := startAssistant(t, in, map[string]any{})
	if res := a.wait(a.call("echo__echo", map[string]any{"message": "before"})); !strings.Contains(res, "before") {
		t.Fatalf("echo before the storm: %s", res)
	}
	base := dbFDs(t, pid, db)

	storm := a.call("ask__storm", map[string]any{"count": strconv.Itoa(stormRequests)})
	echo := a.call("echo__echo", map[string]any{"message": "during the storm"})
	got := a.waitAll(storm, echo)
	if !strings.Contains(got[storm], fmt.Sprintf("sent %d", stormRequests)) {
		t.Errorf("storm: %s", got[storm])
	}
	if !strings.Contains(got[echo], "during the storm") {
		t.Errorf("another server during the storm: %s", got[echo])
	}

	// Every request has its audit row: the refused ones, and the 32 the
	// inbox held, closed by the server's exit.
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var rows []store.Elicitation
	testkit.Eventually(time.Minute, func() bool {
		rows, err = st.Elicitations(context.Background(), 0)
		return err == nil && len(rows) >= stormRequests
	})
	if err != nil {
		t.Errorf("reading the audit rows: %v", err)
	}
	// The inbox held the first 32 to arrive (closed when the server
	// exited), and refused the others; a request whose goroutine was
	// still on its way when the server's session ended may get in after
	// those 32 closed (and close at once).
	by := map[string]int{}
	for _, r := range rows {
		by[r.Outcome+"/"+r.ClosedBy]++
	}
	refusedRows := by["cancel/inbox-full"]
	if len(rows) != stormRequests || refusedRows+by["cancel/server"] != stormRequests || by["cancel/server"] < inboxCapPerServer || refusedRows < stormRequests/2 {
		t.Errorf("%d audit rows, want %d: %v", len(rows), stormRequests, by)
	}

	// The database's descriptors are back to where they were.
	var fds int
	testkit.Eventually(time.Minute, func() bool { fds = dbFDs(t, pid, db); return fds <= base+10 })
	if fds > base+10 {
		t.Errorf("%d descriptors on %s after the storm, %d before", fds, db, base)
	}
	rss := vmRSS(t, pid)
	if rss > stormRSSLimit {
		t.Errorf("daemon RSS %d MiB after the storm, want below %d MiB", rss>>20, stormRSSLimit>>20)
	}
	t.Logf("audit rows %v; descriptors on the database %d before the storm, %d after; RSS %d MiB", by, base, fds, rss>>20)

	// status counts the refused requests; the logs say so.
	refused := func() int {
		code, out, errs := in.Run("status", "--json")
		if code != 0 {
			t.Fatalf("status --json: exit %d: %s", code, errs)
		}
		var s struct {
			Servers []struct {
				Name         string `json:"name"`
				InboxRefused *int   `json:"inboxRefused"`
			} `json:"servers"`
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("status --json: %v\n%s", err, out)
		}
		for _, sv := range s.Servers {
			if sv.Name == "ask" && sv.InboxRefused != nil {
				return *sv.InboxRefused
			}
		}
		return -1
	}
	if n := refused(); n != refusedRows {
		t.Errorf("status: inboxRefused of ask is %d, want %d (the audit rows closed by inbox-full)", n, refusedRows)
	}
	if _, out, _ := in.Run("status"); !strings.Contains(out, fmt.Sprintf("ask: %d inbox requests refused", refusedRows)) {
		t.Errorf("status does not tell of the refused requests:\n%s", out)
	}
	// A line when the inbox fills, one with the count when it no longer is.
	_, logs, _ := in.Run("logs", "ask")
	for name, text := range map[string]string{"the server's log": logs, "mcptray's log": in.Stderr.String()} {
		fills, sum := strings.Count(text, "inbox full: "), 0
		counts := regexp.MustCompile(`inbox no longer full: refused (\d+) requests`).FindAllStringSubmatch(text, -1)
		for _, m := range counts {
			n, _ := strconv.Atoi(m[1])
			sum += n
		}
		if fills == 0 || fills != len(counts) || fills > 3 || sum != refusedRows {
			t.Errorf("%s: %d lines on a full inbox, %d with counts adding up to %d, want 1 each and %d:\n%.3000s", name, fills, len(counts), sum, refusedRows, text)
		}
	}

	// The server comes back and the inbox works for it again.
	in.WaitFor("ask restarted", func(s statusJSON) bool {
		for _, sv := range s.Servers {
			if sv.Name == "ask" {
				return sv.State == "ready" && sv.Restarts >= 1
			}
		}
		return false
	})
	call := a.call("ask__form", map[string]any{"form": "confirm"})
	l, _ := in.waitRequest("ask")
	if code, out, errs := in.Run("inbox", "answer", l.Requests[0].ID, "--yes"); code != 0 {
		t.Errorf("answer after the storm: exit %d %q %q", code, out, errs)
	}
	if res := a.wait(call); !strings.Contains(res, `\"action\":\"accept\"`) {
		t.Errorf("form after the storm: %s", res)
	}
}

// An elicitation over the limits (a message over 16 KiB, more than 64
// fields) is cancelled with a reason in the server's log and never
// reaches the inbox; the next one does.
func TestInboxRefusesOversizedRequests(t *testing.T) {
	in := startDaemon(t, map[string]any{"ask": fakeEntry(t, "asker")})
	in.WaitFor("ready", states("ask", "ready"))
	a := startAssistant(t, in, map[string]any{})

	for _, tc := range []struct{ what, reason string }{
		{"message", "its message is 17425 bytes, over the 16384-byte limit"},
		{"fields", "its form has 65 fields, over the limit of 64"},
	} {
		res := a.wait(a.call("ask__big", map[string]any{"what": tc.what}))
		if !strings.Contains(res, `\"action\":\"cancel\"`) {
			t.Errorf("%s: %s", tc.what, res)
		}
		_, logs, _ := in.Run("logs", "ask")
		if !strings.Contains(logs, tc.reason) {
			t.Errorf("%s: the server's log does not say %q:\n%s", tc.what, tc.reason, logs)
		}
		if !strings.Contains(in.Stderr.String(), tc.reason) {
			t.Errorf("%s: mcptray's log does not say %q", tc.what, tc.reason)
		}
		if _, out, _ := in.Run("inbox"); out != "No requests waiting.\n" {
			t.Errorf("%s: the inbox shows %s", tc.what, out)
		}
	}
	call := a.call("ask__form", map[string]any{"form": "confirm"})
	l, _ := in.waitRequest("ask")
	in.Run("inbox", "answer", l.Requests[0].ID, "--yes")
	if res := a.wait(call); !strings.Contains(res, `\"action\":\"accept\"`) {
		t.Errorf("a request within the limits: %s", res)
	}
}

// waitAll returns the replies to the requests ids, in any order; other
// lines are skipped.
func (a *assistant) waitAll(ids ...int) map[int]string {
	a.t.Helper()
	got := map[int]string{}
	deadline := time.After(120 * time.Second)
	for len(got) < len(ids) {
		select {
		case line, ok := <-a.lines:
			if !ok {
				a.t.Fatalf("mcptray connect ended before the replies to %v", ids)
			}
			var m struct {
				ID     *int   `json:"id"`
				Method string `json:"method"`
			}
			if json.Unmarshal([]byte(line), &m) == nil && m.ID != nil && m.Method == "" {
				got[*m.ID] = line
			}
		case <-deadline:
			a.t.Fatalf("no replies to %v within 120s; got %v", ids, got)
		}
	}
	return got
}

// dbFDs counts the descriptors process pid holds on the database at path
// (and its -wal and -shm files).
func dbFDs(t *testing.T, pid int, path string) int {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if target, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && strings.HasPrefix(target, path) {
			n++
		}
	}
	return n
}

// vmRSS is process pid's resident set size in bytes.
func vmRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/PID/status")
	return 0
}
