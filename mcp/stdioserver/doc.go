// Package stdioserver gives the MCP servers mcptray itself runs as
// processes (`mcptray serve ssh`, the test fakes of mcptest) their stdio
// transport.
//
// The go-sdk's StdioTransport reads os.Stdin, which a parent's pipe leaves
// in blocking mode, so every message is waited for inside a blocking
// read(2) system call. The Go runtime (1.26; 1.27's code is the same) can
// deadlock there — scripts/stwrace.go reproduces it without the SDK. As we
// read the runtime, a goroutine entering a system call checks for a
// pending stop-the-world before it marks itself as in the call, while the
// garbage collector stopping the world checks goroutines' states after
// announcing the stop; when the two cross, the collector waits for a
// goroutine it believes running, which sleeps in read(2) until the
// client's next message — and the client waits for the answer the
// stopped process never sends. The benchmarks hit it once in some 30,000
// to 100,000 calls (docs/performance.md).
//
// Transport hands the SDK a stdin the runtime's poller waits on instead: a
// goroutine waiting for input is parked, not in a system call, and a
// collection never waits for it. On Windows (stdin_other.go) stdin is
// os.Stdin, read as the SDK reads it: an anonymous pipe's handle is
// synchronous, with no poller to wait in.
package stdioserver
