package app

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
)

// ServeStdio hands in and out (connect's own stdin and stdout) to the
// instance's gateway and blocks until the MCP session ends. server ""
// aggregates every server; tools "" uses the configured mode.
func (cl *Client) ServeStdio(ctx context.Context, server, tools string, in, out *os.File) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", cl.sock)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", cl.sock, err)
	}
	defer conn.Close()
	q := url.Values{}
	if server != "" {
		q.Set("server", server)
	}
	if tools != "" {
		q.Set("tools", tools)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://mcptray/v1/mcp?"+q.Encode(), nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", fdsUpgrade)
	if err := req.Write(conn); err != nil {
		return fmt.Errorf("opening an MCP session: %w", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		return fmt.Errorf("opening an MCP session: %w", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(resp.Body)
		var e apiError
		if json.Unmarshal(body, &e) == nil && e.Error != "" {
			return errors.New(e.Error)
		}
		return fmt.Errorf("opening an MCP session: mcptray answered %s", resp.Status)
	}
	if err := sendStdio(conn.(*net.UnixConn), in, out); err != nil {
		return fmt.Errorf("handing stdio to mcptray: %w", err)
	}
	// The instance closes the socket when the session ends.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	io.Copy(io.Discard, conn)
	return ctx.Err()
}
