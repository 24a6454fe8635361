package mcptest

import (
	"context"
	"fmt"
	"io"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Mode "crlf" is echo as a Windows program may write it: every line on
// its stdout ends in "\r\n", a banner line first. It reads what it is
// sent whatever the line ending.
func runCRLF() int {
	out := crlfWriter{os.Stdout}
	fmt.Fprint(out, "crlf fake ready\n")
	if err := NewServer("echo").Run(context.Background(), &sdk.IOTransport{Reader: os.Stdin, Writer: out}); err != nil {
		fmt.Fprintln(os.Stderr, "serving:", err)
		return 1
	}
	return 0
}

// crlfWriter ends each line written in one Write with "\r\n" instead of
// "\n" (the SDK writes a message and its newline in one Write).
type crlfWriter struct{ w io.Writer }

func (c crlfWriter) Write(b []byte) (int, error) {
	n := len(b)
	if n == 0 || b[n-1] != '\n' {
		return c.w.Write(b)
	}
	line := make([]byte, 0, n+1)
	line = append(append(line, b[:n-1]...), '\r', '\n')
	if _, err := c.w.Write(line); err != nil {
		return 0, err
	}
	return n, nil
}

func (crlfWriter) Close() error { return nil }
