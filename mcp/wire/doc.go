// Package wire is the low-level wire code that the gateway (package mcp)
// and the server side (mcp/downstream) share. It imports no package of
// the module, and holds no state about sessions or calls.
//
// # Contract
//
//   - JSON-RPC lines without decoding them (raw.go): PeekMessage finds a
//     message's top-level fields as Spans (Peek), Field and ScanObject a
//     key's value in an object, Splice rewrites Spans (Edits) and ends the
//     line; AppendGWID and ParseGWID make and read the gateway's own ids
//     and progress tokens ("gw-N", GWIDPrefix); ErrorLine is a JSON-RPC
//     error reply; RawString, QuoteJSON, KeyIs, SkipValue and SkipWS are
//     the scanner's pieces. The scanner trusts its input to be JSON and
//     rejects what it cannot delimit (ErrNotObject).
//   - The strict pass (strict.go): CheckMessage finds a message's fields
//     as PeekMessage does while checking all of it — JSON, no key twice
//     in any object (keys compared decoded by KeyText; in the message and
//     its params, result or error also without case), keys valid UTF-8,
//     at most MaxDepth deep — with a KeyError, DepthError or SyntaxError
//     naming what and where; Check does the same for any value;
//     RequestID reads a refused message's id when it reads one way.
//   - LineReader splits a stream into lines of at most a bound
//     (MaxLineBytes for stdout, MaxStderrLineBytes), keeping both ends of
//     a line it drops (Cut), where CutReplyID finds a reply's id; LogText
//     makes a line fit for a log (MaxLogLineBytes).
//   - Raw I/O (rawio*.go): PipeFile reads and writes an *os.File with raw
//     system calls under the poller; StdioStream is an assistant's stdin
//     and stdout handed over as two descriptors, RawListener the HTTP
//     endpoint's listener with raw connections; HungUp polls a descriptor
//     for its peer's end. On Windows there is no raw path
//     (rawio_windows.go): the same types take os.File's and net.Conn's own
//     reads and writes, TryWrite writes nothing and a StreamWriter queues
//     every line for its goroutine.
//   - StreamWriter writes lines to an assistant's stream without making
//     the sender wait: a non-blocking write when the socket takes it, else
//     a queue for its goroutine; WaitRoom lets the reader of that
//     assistant's requests wait while over PauseUnread bytes wait, and
//     past MaxUnread it gives up (Overflow). PipeFile.TryWrite is the
//     same non-blocking write for a server's stdin.
//   - HandOff yields the CPU to the peer a write just woke (handoff.go);
//     CountHandOffs counts instead, for tests.
//   - Secrets is one session's redactions, replaced whole when one is
//     added (With); RedactJSON and RedactText take them out of JSON text
//     and log lines, matching JSON strings by their decoded value.
//
// # Goroutines
//
// NewStreamWriter starts the writer's one goroutine, which Close ends and
// waits for. HandOff runs on its caller's goroutine. Nothing else here
// starts a goroutine; everything is safe to call from the goroutine that
// owns the value (a LineReader, a PipeFile's reads), and StreamWriter.Send
// and WaitRoom, HandOff and Secrets from any.
package wire
