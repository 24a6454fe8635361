package mcp

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestSDKLoggerDemotesOnlyUndeliveredNoStream(t *testing.T) {
	t.Parallel()
	noStream := "calling notifications/tools/list_changed: rejected by transport: undelivered message: stream not connected or already closed"
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		var buf bytes.Buffer
		l := sdkLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: level}))).With("view", "all")
		l.Warn(noStream)
		l.Warn("calling notifications/tools/list_changed: context deadline exceeded")
		l.Error("something else")
		out := buf.String()
		if level == slog.LevelInfo && strings.Contains(out, "stream not connected") {
			t.Errorf("info level: the undelivered notification is logged:\n%s", out)
		}
		if level == slog.LevelDebug && !strings.Contains(out, `level=DEBUG msg="`+noStream+`" view=all`) {
			t.Errorf("debug level: the undelivered notification is not logged at debug:\n%s", out)
		}
		if !strings.Contains(out, `level=WARN msg="calling notifications/tools/list_changed: context deadline exceeded" view=all`) ||
			!strings.Contains(out, `level=ERROR msg="something else"`) {
			t.Errorf("level %v: other messages changed:\n%s", level, out)
		}
	}
}

func TestSDKLoggerDemotesInfo(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := sdkLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
	l.Info("server session connected", "session_id", "abc")
	l.Warn("keepalive ping failed; tolerating below threshold")
	if out := buf.String(); strings.Contains(out, "server session connected") || !strings.Contains(out, "keepalive ping failed") {
		t.Errorf("at info level, want the warning and not the SDK's info message:\n%s", out)
	}
	buf.Reset()
	l = sdkLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	l.Info("server session connected", "session_id", "abc")
	if out := buf.String(); !strings.Contains(out, `level=DEBUG msg="server session connected"`) {
		t.Errorf("at debug level, the SDK's info message is not logged at debug:\n%s", out)
	}
}
