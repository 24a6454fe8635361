package mcp

import (
	"io"
	"net"
	"os"

	"github.com/mcptray/mcptray/mcp/wire"
)

// StdioStream is the stream ServeStream takes for an assistant's stdin and
// stdout handed over as two descriptors (`mcptray connect`): read and
// written with raw I/O (wire.StdioStream).
func StdioStream(in, out *os.File) io.ReadWriteCloser { return wire.StdioStream(in, out) }

// RawListener wraps the HTTP endpoint's listener so that the connections
// it accepts are read and written with raw I/O (wire.RawListener).
func RawListener(ln net.Listener) net.Listener { return wire.RawListener(ln) }
