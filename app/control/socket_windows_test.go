package control

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/internal/testkit"
)

// TestWindowsPipeName: the system data dir has the bare per-user pipe;
// any other data dir a pipe of its own, the same for the same folder
// however it is spelled.
func TestWindowsPipeName(t *testing.T) {
	sys, err := config.SystemDataDir()
	if err != nil {
		t.Fatal(err)
	}
	bare := SocketPath(sys)
	if !strings.HasPrefix(bare, `\\.\pipe\mcptray-`) || strings.Count(bare, "-") != 1+strings.Count(pipeUser(), "-") {
		t.Errorf("SocketPath(system data dir) = %q, want \\\\.\\pipe\\mcptray-<user>", bare)
	}
	a, b := testkit.TempDir(t), testkit.TempDir(t)
	if SocketPath(a) == SocketPath(b) || SocketPath(a) == bare {
		t.Errorf("two data dirs share a pipe: %q, %q (system: %q)", SocketPath(a), SocketPath(b), bare)
	}
	if got := SocketPath(strings.ToUpper(a) + `\.`); got != SocketPath(a) {
		t.Errorf("SocketPath of the same folder spelled otherwise = %q, want %q", got, SocketPath(a))
	}
}

// TestWindowsPipeDACL: the pipe's DACL, read back from a connection,
// admits the current user alone. (Wine stores it but does not enforce
// it: a foreign user's refusal needs real Windows.)
func TestWindowsPipeDACL(t *testing.T) {
	data := testkit.TempDir(t)
	ln, err := Listen(data)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go http.Serve(ln, http.NotFoundHandler())
	conn, err := dialSocket(context.Background(), SocketPath(data))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	sd, err := windows.GetSecurityInfo(windows.Handle(conn.(interface{ Fd() uintptr }).Fd()), windows.SE_KERNEL_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatal(err)
	}
	want, err := userOnlySDDL()
	if err != nil {
		t.Fatal(err)
	}
	if sd.String() != want {
		t.Errorf("the pipe's DACL = %s, want %s", sd, want)
	}
}

// TestWindowsPipeOneInstance: a second Listen on a pipe in use fails
// (under Wine a second ListenPipe would succeed), and the pipe is gone,
// for Dial, once the listener closes.
func TestWindowsPipeOneInstance(t *testing.T) {
	data := testkit.TempDir(t)
	ln, err := Listen(data)
	if err != nil {
		t.Fatal(err)
	}
	if ln2, err := Listen(data); err == nil {
		ln2.Close()
		t.Error("a second Listen on the same pipe succeeded")
	}
	ln.Close()
	if _, err := Dial(data); err == nil || !strings.Contains(err.Error(), ErrNotRunning.Error()) {
		t.Errorf("Dial after the listener closed = %v, want ErrNotRunning", err)
	}
}

// TestWindowsPeerPID: the handler learns the client's pid from the pipe.
func TestWindowsPeerPID(t *testing.T) {
	data := testkit.TempDir(t)
	ln, err := Listen(data)
	if err != nil {
		t.Fatal(err)
	}
	pids := make(chan int, 2) // Dial's probe, then the request
	srv := &http.Server{
		Handler: http.NotFoundHandler(),
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			pid, err := peerPID(c)
			if err != nil {
				t.Errorf("peerPID: %v", err)
			}
			pids <- pid
			return ctx
		},
	}
	go srv.Serve(ln)
	defer srv.Close()
	cl, err := Dial(data)
	if err != nil {
		t.Fatal(err)
	}
	cl.Status(context.Background()) // a 404: only the connection matters
	for range 2 {
		if pid := <-pids; pid != os.Getpid() {
			t.Errorf("peer pid = %d, want %d (this process)", pid, os.Getpid())
		}
	}
}

// TestWindowsRelayHalfClose: connect's relay (ServeStdio) sends its input,
// half-closes, and still gets every reply the instance writes after it
// read EOF.
func TestWindowsRelayHalfClose(t *testing.T) {
	b := &backend{serveMCP: func(ctx context.Context, rw io.ReadWriteCloser) error {
		var got []byte
		buf := make([]byte, 4096)
		for {
			n, err := rw.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				break
			}
		}
		_, err := rw.Write([]byte("echo:" + string(got)))
		return err
	}, toolsMode: "live"}
	cl, _ := serve(t, b)
	dir := testkit.TempDir(t)
	inPath, outPath := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	os.WriteFile(inPath, []byte("{\"jsonrpc\":\"2.0\"}\n"), 0o600)
	in, err := os.Open(inPath)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.ServeStdio(context.Background(), "", "", in, out); err != nil {
		t.Fatal(err)
	}
	out.Close()
	got, _ := os.ReadFile(outPath)
	if string(got) != "echo:{\"jsonrpc\":\"2.0\"}\n" {
		t.Errorf("relayed reply = %q", got)
	}
}
