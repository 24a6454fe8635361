package mcptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
)

// runLaggard is the "laggard" mode: a stdio server written by hand that
// misbehaves in the ways that must not stall mcptray. Its tools:
//
//	echo {message}   answers like the echo fake
//	deaf             answers "deaf", then never reads its stdin again
//	                 (the process lives on, its stdout open)
//	huge {idLast, idMiddle}
//	                 answers with a line of 17 MiB: the id first, or with
//	                 idLast as the last member (as the TypeScript SDK writes),
//	                 or with idMiddle between two members of 8.5 MiB
//	hold             answers "held" once the process gets SIGUSR1, reading
//	                 nothing meanwhile (a server that reads its next line
//	                 only after answering)
//	flood {count}    sends count notifications/tools/list_changed, then
//	                 answers "flooded"
//	lists            answers how many tools/list requests it got
//	big {size}       answers with a text of size bytes
//
// Every other request gets an empty result (ping, logging/setLevel) or
// "method not found".
func runLaggard() int {
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	line := func(s string) {
		out.WriteString(s)
		out.WriteByte('\n')
		out.Flush()
	}
	lists := 0
	usr1 := make(chan os.Signal, 1)
	notifyHold(usr1)
	return serveRaw(line, "fake-laggard", `{"tools":{"listChanged":true}}`, func(msg rawMessage, _ []byte) bool {
		id := string(msg.ID)
		switch msg.Method {
		case "tools/list":
			lists++
			// Said not destructive, like the other fakes' tools, so that
			// no call waits for the person's approval.
			obj := `,"inputSchema":{"type":"object"},"annotations":{"destructiveHint":false}}`
			var b strings.Builder
			b.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"result":{"tools":[`)
			for i, name := range []string{"echo", "deaf", "huge", "flood", "lists", "big", "hold"} {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(`{"name":"` + name + `","description":"The laggard's ` + name + `."` + obj)
			}
			b.WriteString(`]}}`)
			line(b.String())
		case "tools/call":
			var p struct {
				Name      string `json:"name"`
				Arguments struct {
					Message string `json:"message"`
					IDLast  bool   `json:"idLast"`
					IDMid   bool   `json:"idMiddle"`
					Count   int    `json:"count"`
					Size    int    `json:"size"`
				} `json:"arguments"`
			}
			json.Unmarshal(msg.Params, &p)
			text := func(s string) {
				line(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":` + strconv.Quote(s) + `}]}}`)
			}
			switch p.Name {
			case "echo":
				text(p.Arguments.Message)
			case "deaf":
				text("deaf")
				select {} // never read stdin again
			case "huge":
				pad := bytes.Repeat([]byte{'x'}, 17<<20)
				switch {
				case p.Arguments.IDMid:
					half := string(pad[:len(pad)/2])
					line(`{"result":{"content":[{"type":"text","text":"` + half + `"}]},"id":` + id + `,"_meta":{"pad":"` + half + `"},"jsonrpc":"2.0"}`)
				case p.Arguments.IDLast:
					line(`{"result":{"content":[{"type":"text","text":"` + string(pad) + `"}]},"jsonrpc":"2.0","id":` + id + `}`)
				default:
					line(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"` + string(pad) + `"}]}}`)
				}
			case "hold":
				os.Stderr.WriteString("holding\n")
				<-usr1
				text("held")
			case "flood":
				for range p.Arguments.Count {
					out.WriteString(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\n")
				}
				out.Flush()
				text("flooded")
			case "big":
				text(strings.Repeat("b", p.Arguments.Size))
			case "lists":
				text(strconv.Itoa(lists))
			default:
				line(`{"jsonrpc":"2.0","id":` + id + `,"result":{"isError":true,"content":[{"type":"text","text":"unknown tool"}]}}`)
			}
		default:
			return false
		}
		return true
	})
}
