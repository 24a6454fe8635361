package app

import (
	"strconv"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
)

// TestListChangedFloodRateLimited: a server sends 3 × 20 000
// notifications/tools/list_changed in a row. Its tools are listed again
// once at once and then at most once per RelistEvery (here an hour, so
// the test waits on nothing), not once per notification; the server's
// log says so, and its tools keep working.
func TestListChangedFloodRateLimited(t *testing.T) {
	h := startCore(t, servers("lag", fake(t, "laggard")), func(o *Options) { o.RelistEvery = time.Hour })
	h.wait("lag ready", stateIs("lag", control.StateReady))
	c := openEvents(t, h, "lag__flood")
	for range 3 {
		if text, _ := toolText(t, callTool(c, "lag__flood", map[string]any{"count": 20000})); text != "flooded" {
			t.Fatalf("flood: %s", text)
		}
	}
	h.waitLog("lag", "tools/list_changed comes more often than every 1h0m0s: tools are listed again at most that often")
	text, _ := toolText(t, callTool(c, "lag__lists", map[string]any{}))
	lists, err := strconv.Atoi(text)
	if err != nil {
		t.Fatalf("lists: %q", text)
	}
	// The start's list, and one at the first notification.
	if lists > 2 {
		t.Errorf("the server was asked for its tools %d times after 60000 list_changed; want at most 2", lists)
	}
	if text, _ := toolText(t, callTool(c, "lag__echo", map[string]any{"message": "hi"})); text != "hi" {
		t.Errorf("echo after the flood: %q", text)
	}
}
