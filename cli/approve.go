package cli

import (
	"context"
	"fmt"
	"io"
)

// cmdApprove is `mcptray approve NAME`: a new or changed entry of mcp.json
// that waits in state needs-approval may run as it is now.
func cmdApprove(ctx context.Context, args []string, stdout io.Writer) error {
	f := newFlags("approve")
	cl, err := f.parseDial(args, 1)
	if err != nil {
		return err
	}
	if err := cl.ApproveServer(ctx, f.Arg(0)); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s approved: it starts now\n", oneLine(f.Arg(0)))
	return nil
}
