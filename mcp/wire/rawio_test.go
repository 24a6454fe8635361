package wire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// rawPipe returns both ends of a pipe as pipeFiles, checking that they
// take the raw path where there is one.
func rawPipe(t *testing.T) (r, w *PipeFile) {
	t.Helper()
	rf, wf, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rf.Close(); wf.Close() })
	r, w = NewPipeFile(rf), NewPipeFile(wf)
	if rawIO && (r.rc == nil || w.rc == nil) {
		t.Fatal("a pipe from os.Pipe is non-blocking: it should take the raw path")
	}
	return r, w
}

func TestPipeFileCarriesMoreThanThePipeHolds(t *testing.T) {
	t.Parallel()
	r, w := rawPipe(t)
	want := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB: the writer must wait for the reader
	errc := make(chan error, 1)
	go func() {
		n, err := w.Write(want)
		if err == nil && n != len(want) {
			err = io.ErrShortWrite
		}
		w.Close()
		errc <- err
	}()
	got, err := io.ReadAll(r) // ends on io.EOF
	if err != nil {
		t.Fatalf("reading: %v", err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("writing: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, not the %d written", len(got), len(want))
	}
}

func TestPipeFileOnAFileThatIsNotPollable(t *testing.T) {
	t.Parallel()
	// Not t.TempDir: under Wine 8 its os.RemoveAll fails ("unlinkat:
	// Invalid function") where os.Remove works.
	tmp, err := os.CreateTemp("", "pipefile-")
	if err != nil {
		t.Fatal(err)
	}
	path := tmp.Name()
	tmp.Close()
	t.Cleanup(func() { os.Remove(path) })
	if err := os.WriteFile(path, []byte("a regular file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := NewPipeFile(f)
	if p.rc != nil {
		t.Fatal("a regular file is blocking: it must not take the raw path")
	}
	if got, err := io.ReadAll(p); err != nil || string(got) != "a regular file\n" {
		t.Fatalf("ReadAll = %q, %v", got, err)
	}
}

// TestRawListenerServesHTTP runs net/http on a RawListener: requests are
// served, and a client that hangs up mid-request cancels its request's
// context, which net/http sees through a read it aborts with a deadline.
func TestRawListenerServesHTTP(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	waiting, gone := make(chan struct{}), make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(w, r.Body)
	})
	mux.HandleFunc("/wait", func(w http.ResponseWriter, r *http.Request) {
		close(waiting)
		select {
		case <-r.Context().Done():
			close(gone)
		case <-time.After(10 * time.Second):
		}
	})
	srv := &http.Server{Handler: mux, ConnState: func(c net.Conn, s http.ConnState) {
		if _, raw := c.(*rawTCPConn); s == http.StateNew && rawIO && !raw {
			t.Errorf("accepted a %T, want *rawTCPConn", c)
		}
	}}
	go srv.Serve(RawListener(ln))
	defer srv.Close()
	url := "http://" + ln.Addr().String()

	body := bytes.Repeat([]byte("x"), 3<<20) // more than a socket buffer each way
	for range 3 {                            // on one kept-alive connection
		resp, err := http.Post(url+"/echo", "application/octet-stream", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("echo: %d bytes, %v", len(got), err)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/wait", nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-waiting
	cancel() // the client closes its connection
	select {
	case <-gone:
	case <-time.After(5 * time.Second):
		t.Fatal("the handler's context was not cancelled when the client hung up")
	}
	<-done
}

func TestRawTCPConnDeadlineAndClose(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	c, err := RawListener(ln).Accept()
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, err = c.Read(make([]byte, 10))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read past its deadline: %v, want a timeout", err)
	}
	c.SetReadDeadline(time.Time{})
	errc := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 10))
		errc <- err
	}()
	waitInPoller(t, "TestRawTCPConnDeadlineAndClose")
	c.Close()
	if err := <-errc; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read ended by Close: %v, want net.ErrClosed", err)
	}
}

// waitInPoller waits until a goroutine that test started waits in the
// network poller ("IO wait" in its stack): a read that blocks. (Package
// wire imports no package of the module, so not internal/testkit.)
func waitInPoller(t *testing.T, test string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(30 * time.Second); ; {
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, "[IO wait") && strings.Contains(g, "wire."+test+".func") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s's read to wait in the poller", test)
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
}
