//go:build linux

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// An elicitation a server sends while it starts goes to the gateway's
// inbox (format "password" and all), and the startup deadline stops while
// the person is asked: an answer after four deadlines still lets the
// server start.
func TestElicitationWhileStarting(t *testing.T) {
	const startTimeout = 500 * time.Millisecond
	for _, mode := range []string{"unlock", "unlock-list"} {
		t.Run(mode, func(t *testing.T) {
			asked := make(chan ElicitInfo, 1)
			g, _ := newTestGateway(t, GatewayOptions{Elicit: func(ctx context.Context, info ElicitInfo) (*ElicitResult, error) {
				asked <- info
				select {
				case <-time.After(4 * startTimeout): // the person takes their time
				case <-ctx.Done():
					return &ElicitResult{Action: "cancel"}, nil
				}
				return &ElicitResult{Action: "accept", Content: map[string]any{"passphrase": "open-sesame-42"}}, nil
			}})
			spec, marker := fakeSpec(mode)
			spec.Name, spec.Router, spec.StartTimeout = "vault", g.Router("vault"), startTimeout
			rec := &mcptest.Log{}
			s, err := downstream.Start(context.Background(), spec, downstream.Hooks{Log: rec.Add})
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			t.Cleanup(func() {
				s.Close()
				if pids := mcptest.MarkedPids(marker); len(pids) > 0 {
					t.Errorf("processes left after Close: %v", pids)
				}
			})
			var info ElicitInfo
			select {
			case info = <-asked:
			default:
				t.Fatal("the elicitation never reached the gateway's Elicit")
			}
			if info.Server != "vault" || info.Tool != "" || !info.Secret || strings.Join(info.SecretFields, ",") != "passphrase" ||
				!strings.Contains(string(info.Schema), `"format":"password"`) {
				b, _ := json.Marshal(info)
				t.Errorf("the request: %s", b)
			}
			if tools := s.Tools(); len(tools) != 1 || tools[0].Name != "status" {
				t.Errorf("tools %v, want [status]", tools)
			}
			res, err := s.CallTool(context.Background(), "status", nil)
			if err != nil || res.IsError {
				t.Fatalf("status: %v %+v", err, res)
			}
			testkit.WaitFor(t, "the echo on stderr", func() bool { return strings.Contains(rec.String(), "unlocked the vault with [redacted]") })
			if strings.Contains(rec.String(), "open-sesame-42") {
				t.Error("the passphrase is in the server's log")
			}
		})
	}
}

// The startup deadline of StdioSpec.StartTimeout still ends a start that
// waits on nothing but the server.
func TestStartTimeoutWithoutElicitation(t *testing.T) {
	spec, marker := fakeSpec("silent", withEnv(mcptest.MarkEnv+"=gen8"))
	spec.StartTimeout = time.Second
	_, err := downstream.Start(context.Background(), spec, downstream.Hooks{})
	if err == nil {
		t.Fatal("Start succeeded")
	}
	if want := "no answer to initialize within 1s (last stderr line: mark: gen8)"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error does not wrap context.DeadlineExceeded: %v", err)
	}
	if pids := mcptest.MarkedPids(marker); len(pids) > 0 {
		t.Errorf("processes left: %v", pids)
	}
}
