//go:build linux

package cli

import (
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
)

// A listen port that another program holds: `mcptray status` prints the
// endpoint in use and a warning saying the port was taken.
func TestStatusSaysThePortWasTaken(t *testing.T) {
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	port := other.Addr().(*net.TCPAddr).Port
	in := startDaemon(t, map[string]any{"echo": fakeEntry(t, "echo")})
	cfg := fmt.Sprintf(`{"mcpServers": {"echo": %s}, "x-mcptray": {"listen": "127.0.0.1:%d"}}`, jsonOf(t, fakeEntry(t, "echo")), port)
	if err := os.WriteFile(in.Config+".tmp", []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(in.Config+".tmp", in.Config); err != nil {
		t.Fatal(err)
	}
	// The first listen (the default port) may be taken too, by another
	// test's daemon: wait for the warning about this port.
	st := in.WaitFor("endpoint moved", func(st statusJSON) bool {
		return strings.Contains(st.EndpointWarning, fmt.Sprintf("port %d ", port))
	})
	code, out, errs := in.Run("status")
	want := fmt.Sprintf("warning: port %d is taken by another program, so mcptray listens on port ", port)
	if code != 0 || !strings.Contains(out, "HTTP endpoint: "+st.Endpoint+"\n") || !strings.Contains(out, want) {
		t.Errorf("status (exit %d, stderr %q):\n%s\nwant the endpoint %s and %q", code, errs, out, st.Endpoint, want)
	}
	t.Logf("mcptray status:\n%s", out)
}
