package mcp

import (
	"context"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// An assistant session gets two lines in mcptray's log, in mcptray's words:
// "assistant session started" once it is initialized and "assistant session
// ended" when it goes, each naming the client (its clientInfo), how it came
// (stdio: `mcptray connect` or the control socket; http) and what it sees.
// The SDK's own lines for the same moments ("server session connected", …)
// are at debug level (sdklog.go): in mcptray's log "server" means an MCP
// server mcptray supervises. HTTP session ids are not logged.

// initialized is the views' InitializedHandler.
func (v *view) initialized(_ context.Context, req *sdk.InitializedRequest) {
	v.g.log.Info("assistant session started", sessionAttrs(req.Session, v.key)...)
}

// logEnded logs the end of a session that was dropped.
func (up *upstream) logEnded() {
	if up.perRequest {
		return // one request, not a session
	}
	if up.ss.InitializeParams() == nil {
		up.g.log.Debug("assistant session ended before it was initialized", sessionAttrs(up.ss, up.v.key)...)
		return
	}
	attrs := append(sessionAttrs(up.ss, up.v.key), "after", time.Since(up.since).Round(time.Second).String())
	up.g.log.Info("assistant session ended", attrs...)
}

// sessionAttrs are the log attributes naming an assistant session.
func sessionAttrs(ss *sdk.ServerSession, key viewKey) []any {
	client, version := clientInfo(ss)
	via := "stdio"
	if ss.ID() != "" {
		via = "http"
	}
	attrs := []any{"client", client, "client_version", version, "via", via}
	if !key.aggregate() {
		attrs = append(attrs, "server", key.server)
	}
	return append(attrs, "tools", key.mode)
}
