package stdioserver

import (
	"io"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport is the go-sdk's stdio transport with stdin read through the
// poller when it is a pipe or a socket (see the package comment). A
// terminal or a file is read as the SDK reads it: making a terminal
// non-blocking would leave the shell it belongs to with a non-blocking
// terminal after we exit. Stdout is written in whole lines, shared with
// Notify.
func Transport() sdk.Transport {
	return &sdk.IOTransport{Reader: stdin(), Writer: nopCloser{stdout}}
}

// nopCloser keeps stdout open when the SDK closes its connection, as its
// StdioTransport does.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
