package control

import (
	"context"
	"io"
	"os"
)

// ServeStdio connects in and out (connect's own stdin and stdout) to the
// instance's gateway and blocks until the MCP session ends. Windows has
// no SCM_RIGHTS to hand them over with, so it relays: in to the pipe, then
// a half-close (the gateway reads EOF and still answers what it got); the
// pipe to out until the instance closes it. server "" aggregates every
// server; tools "" uses the configured mode.
func (cl *Client) ServeStdio(ctx context.Context, server, tools string, in, out *os.File) error {
	conn, err := cl.upgrade(ctx, mcpUpgrade, server, tools)
	if err != nil {
		return err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	go func() {
		io.Copy(conn, in)
		conn.CloseWrite()
	}()
	_, err = io.Copy(out, conn)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
