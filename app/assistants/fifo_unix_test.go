//go:build unix

package assistants

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
)

// A named pipe (real mkfifo) as an assistant's config, or as the mcp.json
// an import writes into, is refused with a reason; setup and import never
// block on it.
func TestFIFOClientFileRefused(t *testing.T) {
	t.Parallel()
	e := testEnv(t)
	c := mustFind(t, "cursor")
	path, err := c.Path(e)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	want := path + " is a named pipe, not a file; mcptray edits only a regular file"
	testkit.Within(t, time.Minute, "setup's plan", func() { _, err = c.Plan(e, Add) })
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("setup on a FIFO: %v, want %q", err, want)
	}
	testkit.Within(t, time.Minute, "import", func() { _, err = NewImport(c, e, filepath.Join(e.Home, "mcp.json")) })
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("import from a FIFO: %v, want %q", err, want)
	}
	testkit.Within(t, time.Minute, "detect", func() {
		for _, st := range Detect(e) {
			if st.Client == c && (st.Err == nil || !strings.Contains(st.Err.Error(), want)) {
				t.Errorf("detect of a FIFO: %+v", st)
			}
		}
	})

	// An import into a mcp.json that is a FIFO.
	os.Remove(path)
	place(t, c, e, []byte(`{"mcpServers": {"b": {"command": "b"}}}`))
	cfg := filepath.Join(e.Home, "mcp.json")
	if err := syscall.Mkfifo(cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	testkit.Within(t, time.Minute, "import into a FIFO", func() { _, err = NewImport(c, e, cfg) })
	if want := cfg + " is a named pipe, not a file"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("import into a FIFO: %v, want %q", err, want)
	}
}
