package mcp

// uncheckedOutputGone is what drain assumes of an output it cannot check.
// On Windows no output can be checked (there is no raw path, so a
// StreamWriter has no RawConn: wire/rawio_windows.go), and an assistant
// that ends its input — `mcptray connect < requests.jsonl` — usually still
// reads: it is assumed present, and its calls are answered (within the
// call timeout, as on Unix) before the session ends.
const uncheckedOutputGone = false
