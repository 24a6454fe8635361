//go:build linux

package downstream

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcptray/mcptray/mcp/wire"
)

// BenchmarkValidUTF8Reply: what the UTF-8 check adds to each line a stdio
// server writes (stdioConn.handleLine, its tap taking the reply as the
// gateway's does). "without" is the same work before the check: trim,
// peek, tap; "check" is utf8.Valid alone. "rewrite" is a reply holding
// one invalid byte.
func BenchmarkValidUTF8Reply(b *testing.B) {
	typical := []byte(`{"jsonrpc":"2.0","id":"gw-1234","result":{"content":[{"type":"text","text":"hello, this is what an echo tool answers"}]}}` + "\n")
	ascii := []byte(`{"jsonrpc":"2.0","id":"gw-1234","result":{"content":[{"type":"text","text":"` + strings.Repeat("Hello, world! ", 300) + `"}]}}` + "\n")
	mixed := []byte(`{"jsonrpc":"2.0","id":"gw-1234","result":{"content":[{"type":"text","text":"` + strings.Repeat("Grüße, 世界! ", 256) + `"}]}}` + "\n")
	bad := bytes.Replace(typical, []byte("hello"), []byte("hel\xffo"), 1)
	c := &stdioConn{}
	tap := lineTap(func([]byte, *wire.Peek) bool { return true })
	c.tap.Store(&tap)
	without := func(line []byte) {
		t := bytes.TrimSpace(line)
		if p, err := wire.PeekMessage(t); err == nil {
			(*c.tap.Load())(t, &p)
		}
	}
	for _, r := range []struct {
		name string
		line []byte
	}{{"typical", typical}, {"4KiB-ASCII", ascii}, {"4KiB-non-ASCII", mixed}} {
		b.Run(r.name+"/without", func(b *testing.B) {
			b.SetBytes(int64(len(r.line)))
			for b.Loop() {
				without(r.line)
			}
		})
		b.Run(r.name+"/check", func(b *testing.B) {
			b.SetBytes(int64(len(r.line)))
			for b.Loop() {
				utf8.Valid(r.line)
			}
		})
		b.Run(r.name+"/with", func(b *testing.B) {
			b.SetBytes(int64(len(r.line)))
			for b.Loop() {
				c.handleLine(r.line)
			}
		})
	}
	b.Run("typical/rewrite", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c.handleLine(bad)
		}
	})
}
