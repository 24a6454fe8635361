//go:build linux

package downstream

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// An HTTP server's tools are kept as it sent them, index for index with
// the decoded ones, whether it answers tools/list on an event stream or as
// one application/json body.
func TestStartHTTPToolsRaw(t *testing.T) {
	for _, jsonResponse := range []bool{false, true} {
		server := mcptest.NewServer("echo")
		h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, &sdk.StreamableHTTPOptions{JSONResponse: jsonResponse})
		srv := httptest.NewServer(h)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		s, err := StartHTTP(ctx, HTTPSpec{Name: "remote", URL: srv.URL}, Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		tools, raw := s.ToolsWithRaw()
		if len(tools) == 0 || len(raw) != len(tools) {
			t.Errorf("JSON response %v: %d tools, %d as sent", jsonResponse, len(tools), len(raw))
		}
		for i, r := range raw {
			var head struct {
				Name string `json:"name"`
			}
			if r == nil || json.Unmarshal(r, &head) != nil || head.Name != tools[i].Name {
				t.Errorf("JSON response %v: tool %d (%s) as sent: %s", jsonResponse, i, tools[i].Name, r)
			}
		}
		s.Close()
		cancel()
		srv.Close()
	}
}
