package loopback

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Page is what the browser shows after the redirect: a title and a body
// whose paragraphs are separated by blank lines.
type Page struct {
	Title string
	Body  string
}

// Listener is a loopback redirect listener of one sign-in.
type Listener struct {
	ln    net.Listener
	path  string
	host  string // 127.0.0.1:PORT, the only Host answered
	moved bool

	srv *http.Server

	mu     sync.Mutex              // guards state and finish until Serve
	state  string                  // set by Serve, read by callback
	finish func(q url.Values) Page // set by Serve
	once   sync.Once               // the first good callback finishes the sign-in
	done   chan struct{}           // closed after finish's page was sent
	serve  sync.Once
}

// Listen binds 127.0.0.1:port (0: any port) for redirects to path ("/"
// when empty). When port is not 0 and cannot be had, it binds another
// port and Moved reports it.
func Listen(port int, path string) (*Listener, error) {
	if port < 0 || port > 65535 {
		return nil, fmt.Errorf("loopback port %d is out of range", port)
	}
	if path == "" {
		path = "/"
	}
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("loopback callback path %q does not start with /", path)
	}
	moved := false
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil && port != 0 {
		moved = true
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		return nil, fmt.Errorf("listening on the loopback address for the sign-in's redirect: %w", err)
	}
	return &Listener{ln: ln, path: path, host: ln.Addr().String(), moved: moved, done: make(chan struct{})}, nil
}

// Port is the port listened on.
func (l *Listener) Port() int { return l.ln.Addr().(*net.TCPAddr).Port }

// Moved reports that the port asked for could not be had, so another was
// taken: a registration made for the old redirect URI does not fit.
func (l *Listener) Moved() bool { return l.moved }

// RedirectURL is http://127.0.0.1:PORT/PATH, the redirect_uri to send.
func (l *Listener) RedirectURL() string { return "http://" + l.host + l.path }

// Serve starts answering redirects (on a goroutine of its own): the first
// one to l's Host and path carrying state calls finish with its query,
// and the browser is shown finish's Page. It may be called once.
func (l *Listener) Serve(state string, finish func(q url.Values) Page) {
	l.serve.Do(func() {
		l.mu.Lock()
		l.state, l.finish = state, finish
		l.mu.Unlock()
		l.srv = &http.Server{Handler: http.HandlerFunc(l.callback), ReadHeaderTimeout: 10 * time.Second}
		go l.srv.Serve(l.ln)
	})
}

// Done is closed once finish has returned and its page was sent.
func (l *Listener) Done() <-chan struct{} { return l.done }

// Close stops the listener, letting a page being sent finish (for a
// second at most).
func (l *Listener) Close() error {
	var srv *http.Server
	l.serve.Do(func() {}) // no Serve after Close
	srv = l.srv
	if srv == nil {
		return l.ln.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		return srv.Close()
	}
	return nil
}

func (l *Listener) callback(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != l.path {
		http.NotFound(w, r)
		return
	}
	// A page of another site that had its name resolve to 127.0.0.1 (DNS
	// rebinding) sends its own name as Host; the authorization server's
	// redirect names 127.0.0.1:PORT, the redirect_uri.
	if r.Host != l.host {
		WritePage(w, http.StatusBadRequest, Page{"Wrong address",
			"This request is not addressed to mcptray's sign-in (http://" + l.host + ")."})
		return
	}
	l.mu.Lock()
	state, finish := l.state, l.finish
	l.mu.Unlock()
	q := r.URL.Query()
	if state == "" || subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(state)) != 1 {
		WritePage(w, http.StatusBadRequest, Page{"This sign-in link is out of date",
			"It does not belong to the sign-in mcptray is waiting for. Start the sign-in again from mcptray."})
		return
	}
	handled := false
	l.once.Do(func() {
		handled = true
		p := finish(q)
		WritePage(w, http.StatusOK, p)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		close(l.done)
	})
	if !handled {
		WritePage(w, http.StatusOK, Page{"Already done", "This sign-in is complete. You can close this tab."})
	}
}

// Deliver finishes the sign-in with a redirect the person copied from the
// browser's address bar, for a browser on another machine (an SSH
// session), whose redirect to 127.0.0.1 never reaches this listener. As
// for a request, only this sign-in's state is taken, once; the Page is
// what the browser would have shown.
func (l *Listener) Deliver(redirect string) (Page, error) {
	u, err := url.Parse(strings.TrimSpace(redirect))
	if err != nil {
		return Page{}, errors.New("that is not an address")
	}
	l.mu.Lock()
	state, finish := l.state, l.finish
	l.mu.Unlock()
	if finish == nil {
		return Page{}, errors.New("no sign-in is waiting")
	}
	q := u.Query()
	if q.Get("state") == "" {
		return Page{}, errors.New("that address is not a sign-in's redirect (it has no state)")
	}
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(state)) != 1 {
		return Page{}, errors.New("that address belongs to another sign-in")
	}
	var p Page
	handled := false
	l.once.Do(func() {
		handled = true
		p = finish(q)
		close(l.done)
	})
	if !handled {
		return Page{}, errors.New("this sign-in is already complete")
	}
	return p, nil
}

// WritePage writes the small page the browser shows after the redirect.
func WritePage(w http.ResponseWriter, code int, p Page) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	paras := ""
	for _, s := range strings.Split(p.Body, "\n\n") {
		paras += "<p>" + html.EscapeString(s) + "</p>\n"
	}
	io.WriteString(w, `<!doctype html><html><head><meta charset="utf-8"><title>mcptray: `+html.EscapeString(p.Title)+
		`</title></head><body style="font-family:sans-serif;max-width:40em;margin:3em auto"><h1>`+
		html.EscapeString(p.Title)+"</h1>\n"+paras+"</body></html>\n")
}
