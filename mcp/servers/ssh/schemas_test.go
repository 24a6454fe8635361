//go:build unix

package ssh

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/internal/testkit"
)

var updateSchemas = flag.Bool("update-schemas", false, "rewrite testdata/schemas.golden from the tools as listed now")

// schemasGolden holds every tool's inputSchema and outputSchema, byte for
// byte as tools/list sends them.
const schemasGolden = "testdata/schemas.golden"

// TestToolSchemasGolden: the JSON schemas the tools publish are the ones
// recorded in testdata/schemas.golden, to the byte (property order
// included), so that refactoring the tools' Go types cannot change what
// an assistant sees. After a deliberate change:
//
//	go test -run TestToolSchemasGolden -update-schemas ./mcp/servers/ssh/
func TestToolSchemasGolden(t *testing.T) {
	t.Parallel()
	testkit.Golden(t, schemasGolden, listedSchemas(t), *updateSchemas, "go test -run TestToolSchemasGolden -update-schemas ./mcp/servers/ssh/")
}

// listedSchemas lists the tools through a client whose transport records
// the raw messages, and returns, for each tool in the order listed, its
// name and its two schemas as the server sent them, one per line.
func listedSchemas(t *testing.T) []byte {
	t.Helper()
	srv := New(Options{Aliases: NewMemoryStore(), Home: t.TempDir(), Version: "test"})
	t.Cleanup(srv.Close)
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.mcpServer().Connect(ctx, st, nil)
	must(t, err)
	t.Cleanup(func() { ss.Close() })
	var wire bytes.Buffer // only this goroutine's calls write, and are done before it is read
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, nil).
		Connect(ctx, &sdk.LoggingTransport{Transport: ct, Writer: &wire}, nil)
	must(t, err)
	t.Cleanup(func() { cs.Close() })
	listed, err := cs.ListTools(ctx, nil)
	must(t, err)
	if listed.NextCursor != "" {
		t.Fatal("tools/list has a second page; the golden records only the first")
	}

	var out bytes.Buffer
	found := false
	for line := range strings.Lines(wire.String()) {
		raw, ok := strings.CutPrefix(line, "read: ")
		if !ok || !strings.Contains(raw, `"tools":`) {
			continue
		}
		var reply struct {
			Result struct {
				Tools []struct {
					Name         string          `json:"name"`
					InputSchema  json.RawMessage `json:"inputSchema"`
					OutputSchema json.RawMessage `json:"outputSchema"`
				} `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(raw), &reply); err != nil {
			t.Fatalf("tools/list reply: %v\n%s", err, raw)
		}
		for _, tool := range reply.Result.Tools {
			fmt.Fprintf(&out, "%s inputSchema %s\n%s outputSchema %s\n", tool.Name, tool.InputSchema, tool.Name, tool.OutputSchema)
		}
		found = len(reply.Result.Tools) == len(listed.Tools)
	}
	if !found {
		t.Fatalf("no tools/list reply with all %d tools on the wire:\n%s", len(listed.Tools), wire.String())
	}
	return out.Bytes()
}
