//go:build unix

package control

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
)

// ServeStdio hands in and out (connect's own stdin and stdout) to the
// instance's gateway and blocks until the MCP session ends. server ""
// aggregates every server; tools "" uses the configured mode.
func (cl *Client) ServeStdio(ctx context.Context, server, tools string, in, out *os.File) error {
	conn, err := cl.upgrade(ctx, fdsUpgrade, server, tools)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := sendStdio(conn.Conn.(*net.UnixConn), in, out); err != nil {
		return fmt.Errorf("handing stdio to mcptray: %w", err)
	}
	// The instance closes the socket when the session ends.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	io.Copy(io.Discard, conn)
	return ctx.Err()
}
