package mcp

import (
	"context"
	"log/slog"
	"strings"
)

// sdkLogger is the logger the SDK's server side gets (gateway views and the
// streamable HTTP handler): ours, with two kinds of message lowered to
// debug level.
//
// The SDK's info messages: every assistant session's lifecycle ("server
// connecting", "server session connected", "session initialized", "server
// session disconnected"), each subscription and each resources/updated
// sent. Four lines per session say in the SDK's words — where "server" is
// mcptray itself — what mcptray logs in one line of its own at each end
// (upstream_log.go), and a tray app that runs for weeks would keep them all.
//
// The SDK warns whenever it cannot deliver a notification to a session,
// and an HTTP client that keeps no standalone GET stream open — the spec
// leaves that stream optional, and some clients (the conformance suite's,
// for one) never open it — cannot be sent list_changed or
// resources/updated: one warning per such session on every change of any
// server's tools. That is the client's choice, not a fault.
func sdkLogger(l *slog.Logger) *slog.Logger {
	return slog.New(sdkHandler{l.Handler()})
}

// undeliveredNoStream ends the SDK's message for such a notification
// ("calling notifications/tools/list_changed: rejected by transport:
// undelivered message: stream not connected or already closed").
const undeliveredNoStream = "stream not connected or already closed"

type sdkHandler struct{ slog.Handler }

func (h sdkHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelInfo || r.Level == slog.LevelWarn && strings.HasPrefix(r.Message, "calling notifications/") && strings.HasSuffix(r.Message, undeliveredNoStream) {
		if !h.Handler.Enabled(ctx, slog.LevelDebug) {
			return nil
		}
		r.Level = slog.LevelDebug
	}
	return h.Handler.Handle(ctx, r)
}

func (h sdkHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return sdkHandler{h.Handler.WithAttrs(attrs)}
}

func (h sdkHandler) WithGroup(name string) slog.Handler { return sdkHandler{h.Handler.WithGroup(name)} }
