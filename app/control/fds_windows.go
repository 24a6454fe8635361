package control

import (
	"context"
	"net"
)

// serveHandedStdio refuses a stdio hand-over (Upgrade: mcp-fds): Windows
// has no SCM_RIGHTS, and connect relays there (client_fds_windows.go).
// Closing the connection ends the client's session.
func (h *Handler) serveHandedStdio(_ context.Context, conn net.Conn, _ mcpOptions) {
	h.log.Warn("refused a stdio hand-over (Upgrade: " + fdsUpgrade + "): Windows relays the bytes instead")
	conn.Close()
}
