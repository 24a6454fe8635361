package mcp

// The helpers only the Linux tests use (gateway_helpers_test.go has those
// the Windows build of the tests and benchmarks shares).

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/wire"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func (c *capture) lastResult() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.results) == 0 {
		return nil
	}
	return c.results[len(c.results)-1]
}

// count is how many messages read contain every one of subs.
func (c *capture) count(subs ...string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
outer:
	for _, m := range c.msgs {
		for _, s := range subs {
			if !strings.Contains(m, s) {
				continue outer
			}
		}
		n++
	}
	return n
}

// connectPipes is connectStream over two pipes, the way `mcptray connect`
// hands its stdin and stdout to the gateway (StdioStream).
func connectPipes(t testing.TB, g *Gateway, uo UpstreamOptions, co *sdk.ClientOptions) *testClient {
	t.Helper()
	inR, inW, outR, outW := twoPipes(t)
	return connectOver(t, g, uo, co, pipePair{r: outR, w: inW}, wire.StdioStream(inR, outW))
}

// twoPipes makes the two pipes of a stdio session: in (read by the
// serving side, written by the other) and out (the other way).
func twoPipes(t testing.TB) (inR, inW, outR, outW *os.File) {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err = os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	return inR, inW, outR, outW
}

// pipePair is the assistant's side of connectPipes.
type pipePair struct{ r, w *os.File }

func (p pipePair) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipePair) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipePair) Close() error                { return errors.Join(p.w.Close(), p.r.Close()) }

// call calls a tool and returns its result and the raw result bytes.
func (tc *testClient) call(t testing.TB, name string, args any) (*sdk.CallToolResult, []byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := tc.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	return res, tc.cap.lastResult(), err
}

// text is the single text block of a result.
func textOf(t testing.TB, res *sdk.CallToolResult) string {
	t.Helper()
	if res == nil || len(res.Content) != 1 {
		t.Fatalf("want one content block, got %+v", res)
	}
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("want text, got %T", res.Content[0])
	}
	return tc.Text
}

// toolNames lists a client's tools by name.
func toolNames(t testing.TB, cs *sdk.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		names = append(names, tool.Name)
	}
	return names
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func fileHas(path, s string) bool {
	b, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(b), s)
}

func withEnv(kv ...string) fakeOpt {
	return func(s *downstream.StdioSpec) { s.Env = append(s.Env, kv...) }
}
