package mcp

import (
	"encoding/json"
	"fmt"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkToolsListEncode measures the encoding of a tools/list page of
// 40 tools: the SDK's alone, and with each tool's definition as its server
// sent it (rawToolsResult), which tools/list answers with.
func BenchmarkToolsListEncode(b *testing.B) {
	lr := &sdk.ListToolsResult{}
	raw := map[string]json.RawMessage{}
	for i := range 40 {
		name := fmt.Sprintf("server__tool-%d", i)
		schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"The file to read, relative to the root"},"limit":{"type":"integer","minimum":1}},"required":["path"]}`)
		lr.Tools = append(lr.Tools, &sdk.Tool{Name: name, Description: "Reads a file and returns its text, up to limit lines.", InputSchema: schema,
			Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}})
		raw[name] = json.RawMessage(fmt.Sprintf(`{"name":%q,"description":"Reads a file and returns its text, up to limit lines.","inputSchema":%s,"annotations":{"readOnlyHint":true},"execution":{"taskSupport":"forbidden"}}`, name, schema))
	}
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(lr); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(&rawToolsResult{lr, raw}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
