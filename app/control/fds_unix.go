//go:build unix

package control

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"

	"github.com/mcptray/mcptray/mcp/wire"
)

// serveHandedStdio receives the two descriptors, serves the gateway on them
// and closes conn when the session ends, which is connect's cue to exit.
func (h *Handler) serveHandedStdio(ctx context.Context, conn net.Conn, opts mcpOptions) {
	defer conn.Close()
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return
	}
	in, out, err := receiveStdio(uc)
	if err != nil {
		h.log.Warn("receiving connect's stdio", "err", err)
		return
	}
	// The session also ends when connect goes away (the assistant killed
	// it): its end of the control socket then reads EOF.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		io.Copy(io.Discard, conn)
		cancel()
	}()
	if err := h.b.ServeMCP(ctx, wire.StdioStream(in, out), opts.Server, opts.Tools); err != nil {
		h.log.Debug("MCP stream ended", "err", err)
	}
}

// receiveStdio reads one message carrying exactly two descriptors: the
// peer's stdin and stdout.
func receiveStdio(uc *net.UnixConn) (in, out *os.File, err error) {
	buf := make([]byte, 1)
	oob := make([]byte, syscall.CmsgSpace(2*4))
	_, oobn, _, _, err := uc.ReadMsgUnix(buf, oob)
	if err != nil {
		return nil, nil, err
	}
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil {
		return nil, nil, err
	}
	var fds []int
	for _, m := range msgs {
		got, err := syscall.ParseUnixRights(&m)
		if err == nil {
			fds = append(fds, got...)
		}
	}
	if len(fds) != 2 {
		for _, fd := range fds {
			syscall.Close(fd)
		}
		return nil, nil, fmt.Errorf("expected 2 descriptors, got %d", len(fds))
	}
	for _, fd := range fds {
		syscall.CloseOnExec(fd)
		syscall.SetNonblock(fd, true) // pollable: Close unblocks a Read
	}
	return os.NewFile(uintptr(fds[0]), "connect-stdin"), os.NewFile(uintptr(fds[1]), "connect-stdout"), nil
}

// sendStdio hands in and out to the instance over uc.
func sendStdio(uc *net.UnixConn, in, out *os.File) error {
	rights := syscall.UnixRights(int(in.Fd()), int(out.Fd()))
	_, _, err := uc.WriteMsgUnix([]byte{0}, rights, nil)
	return err
}
