package gmail

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestCursorsSaveAndLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data") // made by the first save
	c, err := loadCursors(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.get("ada@example.com"); ok {
		t.Fatal("a cursor without a file")
	}
	c.set("ada@example.com", mailCursor{HistoryID: 1234})
	c.set("bob@example.com", mailCursor{HistoryID: 99, Announced: []string{"m1"}})
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, CursorFile)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("the cursor file is %v, want 0600", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), `"history_id": "1234"`) {
		t.Errorf("cursor file:\n%s", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("a temporary file was left: %v", entries)
	}

	c2, err := loadCursors(dir)
	if err != nil {
		t.Fatal(err)
	}
	if cur, ok := c2.get("ada@example.com"); !ok || cur.HistoryID != 1234 || len(cur.Announced) != 0 {
		t.Errorf("ada's cursor %+v %v", cur, ok)
	}
	if cur, _ := c2.get("bob@example.com"); cur.HistoryID != 99 || strings.Join(cur.Announced, ",") != "m1" {
		t.Errorf("bob's cursor %+v", cur)
	}

	// The file is written only when a cursor changed; a removed account's
	// cursor goes.
	c2.set("ada@example.com", mailCursor{HistoryID: 1234})
	c2.keep([]string{"ada@example.com", "bob@example.com"})
	noErr(t, c2.save())
	if fi2, err := os.Stat(path); err != nil || !os.SameFile(fi, fi2) {
		t.Error("the file was written again with nothing changed")
	}
	c2.keep([]string{"ada@example.com"})
	noErr(t, c2.save())
	c3, _ := loadCursors(dir)
	if _, ok := c3.get("bob@example.com"); ok {
		t.Error("a removed account's cursor was kept")
	}
	if _, ok := c3.get("ada@example.com"); !ok {
		t.Error("ada's cursor went")
	}
}

func TestCursorsInRAM(t *testing.T) {
	c, err := loadCursors("")
	noErr(t, err)
	c.set("ada@example.com", mailCursor{HistoryID: 5})
	noErr(t, c.save())
	if cur, ok := c.get("ada@example.com"); !ok || cur.HistoryID != 5 {
		t.Errorf("cursor %+v %v", cur, ok)
	}
}

// TestCursorsDamagedFile: a cursor file that does not parse is a fresh
// start, said in the log, and is replaced by the next save.
func TestCursorsDamagedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, CursorFile)
	noErr(t, os.WriteFile(path, []byte(`{"accounts": {"ada@example.com": {"history_id": `), 0o600))
	c, err := loadCursors(dir)
	if err == nil || !strings.Contains(err.Error(), "starting afresh") || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v", err)
	}
	if c == nil || len(c.st.Accounts) != 0 {
		t.Fatalf("cursors %+v", c)
	}

	var logs bytes.Buffer
	p, err := NewPoller(PollerOptions{Accounts: noAccounts{}, DataDir: dir, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "starting afresh") {
		t.Errorf("log:\n%s", logs.String())
	}
	p.cur.set("ada@example.com", mailCursor{HistoryID: 7})
	noErr(t, p.cur.save())
	c2, err := loadCursors(dir)
	if err != nil {
		t.Fatalf("after a save: %v", err)
	}
	if cur, _ := c2.get("ada@example.com"); cur.HistoryID != 7 {
		t.Errorf("cursor %+v", cur)
	}
}

func noErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
