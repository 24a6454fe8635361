package control

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"

	"github.com/mcptray/mcptray/app/config"
)

// ErrNotRunning means no instance serves the data dir's control socket.
var ErrNotRunning = errors.New("mcptray is not running")

// Client talks to a running instance over its control socket.
type Client struct {
	sock string
	http *http.Client
}

// Dial connects to the instance that owns data dir data.
func Dial(data string) (*Client, error) {
	sock := SocketPath(data)
	conn, err := dialProbe(sock)
	if err != nil {
		if notRunning(err) {
			return nil, fmt.Errorf("%w (no instance on %s)", ErrNotRunning, sock)
		}
		return nil, fmt.Errorf("connecting to %s: %w", sock, err)
	}
	conn.Close()
	return &Client{sock: sock, http: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return dialSocket(ctx, sock)
		},
	}}}, nil
}

// Status fetches the instance's status.
func (cl *Client) Status(ctx context.Context) (Status, error) {
	var st Status
	err := cl.do(ctx, http.MethodGet, "/v1/status", &st)
	return st, err
}

// SetEnabled asks the instance to rewrite a server's "disabled" key.
func (cl *Client) SetEnabled(ctx context.Context, name string, enabled bool) error {
	action := "disable"
	if enabled {
		action = "enable"
	}
	return cl.do(ctx, http.MethodPost, "/v1/servers/"+url.PathEscape(name)+"/"+action, nil)
}

// Restart asks the instance to restart one server.
func (cl *Client) Restart(ctx context.Context, name string) error {
	return cl.do(ctx, http.MethodPost, "/v1/servers/"+url.PathEscape(name)+"/restart", nil)
}

// ApproveServer allows a new or changed entry to run.
func (cl *Client) ApproveServer(ctx context.Context, name string) error {
	return cl.do(ctx, http.MethodPost, "/v1/servers/"+url.PathEscape(name)+"/approve", nil)
}

// Tools fetches the tools of one server, with their switches.
func (cl *Client) Tools(ctx context.Context, name string) (ToolList, error) {
	var l ToolList
	err := cl.do(ctx, http.MethodGet, "/v1/servers/"+url.PathEscape(name)+"/tools", &l)
	return l, err
}

// SetToolEnabled asks the instance to turn one tool of a server on or off.
func (cl *Client) SetToolEnabled(ctx context.Context, server, tool string, on bool) error {
	action := "disable"
	if on {
		action = "enable"
	}
	return cl.do(ctx, http.MethodPost, "/v1/servers/"+url.PathEscape(server)+"/tools/"+url.PathEscape(tool)+"/"+action, nil)
}

func (cl *Client) do(ctx context.Context, method, path string, out any) error {
	r, err := cl.request(ctx, method, path, nil)
	if err != nil {
		return err
	}
	switch r.status {
	case http.StatusOK:
		if out != nil {
			return json.Unmarshal(r.body, out)
		}
		return nil
	case http.StatusNotFound:
		return r.err(config.ErrNoServer)
	}
	return r.err(nil)
}

// reply is the instance's answer to one request.
type reply struct {
	status int    // its status code
	text   string // and its text, "404 Not Found"
	body   []byte
}

// request sends method path, with body as JSON unless nil, and reads the
// whole reply.
func (cl *Client) request(ctx context.Context, method, path string, body []byte) (reply, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://mcptray"+path, rd)
	if err != nil {
		return reply{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := cl.http.Do(req)
	if err != nil {
		return reply{}, talkError(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, fmt.Errorf("reading reply: %w", err)
	}
	return reply{status: resp.StatusCode, text: resp.Status, body: b}, nil
}

// talkError is the error of a request that got no reply: it wraps
// ErrNotRunning too when no instance serves the socket any more (it
// stopped since Dial), for a caller that waits for the next one.
func talkError(err error) error {
	if notRunning(err) {
		return goneError{err}
	}
	return fmt.Errorf("talking to mcptray: %w", err)
}

// goneError is a request's error when the instance is gone: its message
// is the dial's, and it is ErrNotRunning too.
type goneError struct{ err error }

func (e goneError) Error() string   { return "talking to mcptray: " + e.err.Error() }
func (e goneError) Unwrap() []error { return []error{ErrNotRunning, e.err} }

// readSome reads at most 64 KiB of a reply's body: enough for any error.
func readSome(resp *http.Response) ([]byte, error) {
	return io.ReadAll(io.LimitReader(resp.Body, 64<<10))
}

// err is the error a reply that is not a success says: the instance's
// one-line message (else "mcptray answered STATUS"), wrapping is unless
// nil.
func (r reply) err(is error) error {
	msg := fmt.Sprintf("mcptray answered %s", r.text)
	var e apiError
	if json.Unmarshal(r.body, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	if is != nil {
		return remoteError{msg: msg, is: is}
	}
	return errors.New(msg)
}

// remoteError carries the instance's one-line message and the sentinel a
// caller may branch on.
type remoteError struct {
	msg string
	is  error
}

func (e remoteError) Error() string { return e.msg }
func (e remoteError) Unwrap() error { return e.is }

// OpenMCP opens an MCP session with the instance's gateway over the control
// socket: the returned connection carries newline-delimited JSON-RPC.
// server "" aggregates every server; tools "" uses the configured mode.
func (cl *Client) OpenMCP(ctx context.Context, server, tools string) (io.ReadWriteCloser, error) {
	return cl.upgrade(ctx, mcpUpgrade, server, tools)
}

// upgrade asks the instance for an MCP session (POST /v1/mcp) and switches
// the control connection to the upgrade protocol.
func (cl *Client) upgrade(ctx context.Context, protocol, server, tools string) (*bufferedConn, error) {
	conn, err := dialSocket(ctx, cl.sock)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", cl.sock, err)
	}
	q := url.Values{}
	if server != "" {
		q.Set("server", server)
	}
	if tools != "" {
		q.Set("tools", tools)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://mcptray/v1/mcp?"+q.Encode(), nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", protocol)
	if err := req.Write(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("opening an MCP session: %w", err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("opening an MCP session: %w", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		defer conn.Close()
		body, _ := io.ReadAll(resp.Body)
		var e apiError
		if json.Unmarshal(body, &e) == nil && e.Error != "" {
			return nil, errors.New(e.Error)
		}
		return nil, fmt.Errorf("opening an MCP session: mcptray answered %s", resp.Status)
	}
	return &bufferedConn{Conn: conn, r: br}, nil
}
