package control

import (
	"context"
	"errors"
	"net"
	"os"

	"github.com/Microsoft/go-winio"
)

// dialProbe connects to the control pipe once, to see whether an instance
// serves it; it waits at most probeTimeout for a free pipe instance.
func dialProbe(pipe string) (net.Conn, error) { return winio.DialPipe(pipe, ptr(probeTimeout)) }

// dialSocket connects to the control pipe, waiting for a free pipe
// instance until ctx ends.
func dialSocket(ctx context.Context, pipe string) (net.Conn, error) {
	return winio.DialPipeContext(ctx, pipe)
}

// notRunning says whether a dial's error means no instance serves the
// pipe: it does not exist (pipes go with the process that made them).
func notRunning(err error) bool { return errors.Is(err, os.ErrNotExist) }
