package app

import (
	"net"
	"strings"
	"testing"
)

// TestWindowsListenPortTaken: a taken port (WSAEADDRINUSE on Windows)
// moves the HTTP endpoint to a free one, with a warning.
func TestWindowsListenPortTaken(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	ln, warning, err := listenHTTP(taken.Addr().String())
	if err != nil {
		t.Fatalf("listenHTTP on a taken port: %v", err)
	}
	defer ln.Close()
	if ln.Addr().String() == taken.Addr().String() || !strings.Contains(warning, "is taken by another program") {
		t.Errorf("listening on %s, warning %q", ln.Addr(), warning)
	}
}
