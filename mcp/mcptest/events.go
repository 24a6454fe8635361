package mcptest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// addEventTools adds the events mode's tools besides emit:
//
//	emit_async {count, method}  returns at once, then writes count events
//	                            from a goroutine as fast as the pipe takes
//	                            them, in writes of up to 4 KiB (whole lines,
//	                            so replies written meanwhile never split
//	                            one); params {"n": i, "title": "event i",
//	                            "t": unix nanoseconds when the write began}.
//	                            A second file, EventsDoneEnv's, gets "done N"
//	                            when all are written.
//	emit_raw {line, count}      writes line count times, as is: for
//	                            malformed notifications
//	emit_big {bytes, method}    one event whose params hold a string of
//	                            bytes 'x's
func addEventTools(s *sdk.Server) {
	sdk.AddTool(s, &sdk.Tool{Name: "emit_async", Description: "Writes count events in the background, as fast as possible.", Annotations: notDestructive()},
		func(ctx context.Context, req *sdk.CallToolRequest, in emitArgs) (*sdk.CallToolResult, any, error) {
			method := in.Method
			if method == "" {
				method = "event/test"
			}
			go emitBurst(method, in.Count)
			return text(fmt.Sprintf("emitting %d", in.Count)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "emit_raw", Description: "Writes line count times on stdout.", Annotations: notDestructive()},
		func(ctx context.Context, req *sdk.CallToolRequest, in emitRawArgs) (*sdk.CallToolResult, any, error) {
			for range max(in.Count, 1) {
				rawLine(in.Line)
			}
			return text("written"), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "emit_big", Description: "Writes one event with params of about bytes bytes.", Annotations: notDestructive()},
		func(ctx context.Context, req *sdk.CallToolRequest, in emitBigArgs) (*sdk.CallToolResult, any, error) {
			method := in.Method
			if method == "" {
				method = "event/big"
			}
			rawLine(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":{"blob":"%s"}}`, method, strings.Repeat("x", in.Bytes)))
			return text("written"), nil, nil
		})
}

// EventsDoneEnv names a file that emit_async appends "done N\n" to once its
// N events are written.
const EventsDoneEnv = "MCPTRAY_FAKE_EVENTS_DONE"

type emitRawArgs struct {
	Line  string `json:"line"`
	Count int    `json:"count,omitempty"`
}

type emitBigArgs struct {
	Bytes  int    `json:"bytes"`
	Method string `json:"method,omitempty"`
}

// pipeAtomic is the most a write may hold and still never interleave with
// another writer's on a pipe (PIPE_BUF).
const pipeAtomic = 4096

func emitBurst(method string, count int) {
	buf := make([]byte, 0, pipeAtomic)
	prefix := `{"jsonrpc":"2.0","method":` + strconv.Quote(method) + `,"params":{"n":`
	flush := func() {
		stdoutMu.Lock()
		os.Stdout.Write(buf)
		stdoutMu.Unlock()
		buf = buf[:0]
	}
	var line []byte
	for i := range count {
		line = append(line[:0], prefix...)
		line = strconv.AppendInt(line, int64(i), 10)
		line = append(line, `,"title":"event `...)
		line = strconv.AppendInt(line, int64(i), 10)
		line = append(line, `","t":`...)
		line = strconv.AppendInt(line, time.Now().UnixNano(), 10)
		line = append(line, "}}\n"...)
		if len(buf)+len(line) > pipeAtomic {
			flush()
		}
		buf = append(buf, line...)
	}
	if len(buf) > 0 {
		flush()
	}
	if path := os.Getenv(EventsDoneEnv); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err == nil {
			fmt.Fprintf(f, "done %d\n", count)
			f.Close()
		}
	}
}
