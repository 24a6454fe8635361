//go:build linux

package mcp

import (
	"strings"
	"testing"

	"github.com/mcptray/mcptray/internal/testkit"
)

// TestAssistantSessionLogged: each assistant session gets one line of
// mcptray's own when it starts and one when it ends, naming the client, how
// it came and what it sees; the SDK's lifecycle lines, which call mcptray
// "server", are not in the log at info level, and no HTTP session id is.
func TestAssistantSessionLogged(t *testing.T) {
	g, log := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "e", "echo")

	stdio := connectPipes(t, g, UpstreamOptions{}, nil)
	testkit.WaitFor(t, "the stdio session's start in the log", func() bool {
		return strings.Contains(log.String(), `msg="assistant session started" client=test-assistant client_version=1 via=stdio tools=live`)
	})
	srv := httpGateway(t, g, "tok")
	web := connectHTTP(t, srv.URL+"/mcp/e", "tok", nil)
	testkit.WaitFor(t, "the HTTP session's start in the log", func() bool {
		return strings.Contains(log.String(), `msg="assistant session started" client=test-http-assistant client_version=1 via=http server=e tools=live`)
	})
	if _, _, err := stdio.call(t, "e__echo", map[string]any{"message": "hi"}); err != nil {
		t.Fatal(err)
	}
	httpID := web.ID()
	stdio.Close()
	web.Close()
	testkit.WaitFor(t, "both sessions' ends in the log", func() bool {
		l := log.String()
		return strings.Contains(l, `msg="assistant session ended" client=test-assistant client_version=1 via=stdio tools=live after=`) &&
			strings.Contains(l, `msg="assistant session ended" client=test-http-assistant client_version=1 via=http server=e tools=live after=`)
	})
	l := log.String()
	for _, sdkLine := range []string{"server connecting", "server session connected", "session initialized", "server session disconnected", "server session ended"} {
		if strings.Contains(l, `msg="`+sdkLine+`"`) {
			t.Errorf("the SDK's %q is logged at info level:\n%s", sdkLine, l)
		}
	}
	if httpID == "" || strings.Contains(l, httpID) {
		t.Errorf("the HTTP session id %q is in the log (or the session had none):\n%s", httpID, l)
	}
	if n := strings.Count(l, "assistant session"); n != 4 {
		t.Errorf("%d assistant-session lines, want 4:\n%s", n, l)
	}
}
