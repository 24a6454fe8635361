//go:build linux

package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The benchmarks' MCP client: bare JSON-RPC, no SDK, so that the direct
// and the gateway measurement pay exactly the same client cost and their
// ratio shows the gateway alone. One client speaks newline-delimited JSON
// over a child's stdio, the other streamable HTTP.

// benchProtocol is the protocol version the raw clients ask for.
const benchProtocol = "2025-11-25"

// callTimeout bounds one call, so that a wedged peer fails the benchmark
// instead of hanging it.
const callTimeout = 30 * time.Second

// rpcClient is one MCP session. call may be used from several goroutines
// (a streamClient only after pipeline).
type rpcClient interface {
	// call sends a request with params (JSON text) and returns its result.
	call(method, params string) (json.RawMessage, error)
	// notify sends a notification without params.
	notify(method string) error
	close()
}

// rpcReply is a JSON-RPC message as the clients read it.
type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (r *rpcReply) err() error {
	if r.Error != nil {
		return fmt.Errorf("JSON-RPC error %d: %s", r.Error.Code, r.Error.Message)
	}
	return nil
}

func request(id int64, method, params string) []byte {
	b := make([]byte, 0, 64+len(method)+len(params))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":`...)
	b = strconv.AppendQuote(b, method)
	if params != "" {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

// initialize runs the MCP handshake on c.
func initialize(c rpcClient) error {
	params := `{"protocolVersion":"` + benchProtocol + `","capabilities":{},"clientInfo":{"name":"mcptray-bench","version":"1"}}`
	if _, err := c.call("initialize", params); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	return c.notify("notifications/initialized")
}

// bench2026Meta is the _meta of every request of a 2026-07-28 raw client.
const bench2026Meta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"mcptray-bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// discover opens a 2026-07-28 session: server/discover, no initialize.
func discover(c rpcClient) error {
	res, err := c.call("server/discover", `{"_meta":`+bench2026Meta+`}`)
	if err != nil {
		return fmt.Errorf("server/discover: %w", err)
	}
	if !bytes.Contains(res, []byte(`"2026-07-28"`)) {
		return fmt.Errorf("server/discover: no 2026-07-28 in %s", res)
	}
	return nil
}

// newEchoCall2026 is newEchoCall on the 2026-07-28 wire.
func newEchoCall2026(tool string) echoCall {
	return echoCall{params: `{"name":` + strconv.Quote(tool) + `,"arguments":{"message":"hello"},"_meta":` + bench2026Meta + `}`}
}

// echoCall calls tool (the fake's echo, under whatever name) with
// message "hello" and checks that the text comes back.
type echoCall struct {
	params string
}

func newEchoCall(tool string) echoCall {
	return echoCall{params: `{"name":` + strconv.Quote(tool) + `,"arguments":{"message":"hello"}}`}
}

var echoed = []byte(`"text":"hello"`)

func (e echoCall) do(c rpcClient) error {
	res, err := c.call("tools/call", e.params)
	if err != nil {
		return err
	}
	if !bytes.Contains(res, echoed) || bytes.Contains(res, []byte(`"isError":true`)) {
		return fmt.Errorf("echo returned %s", res)
	}
	return nil
}

// streamClient talks newline-delimited JSON-RPC over a pair of streams:
// a child's stdin and stdout, or a connection. It starts synchronous: one
// call at a time, the caller reading its own answer (the least client
// cost per call). pipeline switches it to concurrent calls: then one
// goroutine reads and hands each answer to the caller waiting for its id.
type streamClient struct {
	r      io.Reader
	br     *bufio.Reader
	w      io.WriteCloser
	stop   func() // after w is closed: waits for the peer to end
	nextID atomic.Int64
	piped  bool // set by pipeline, before any concurrent call

	wmu sync.Mutex // serialises writes to w
	rmu sync.Mutex // held by the caller reading br (synchronous mode)

	mu      sync.Mutex // guards pending and readErr (pipelined mode)
	pending map[int64]chan rpcReply
	readErr error
}

func newStreamClient(r io.Reader, w io.WriteCloser, stop func()) *streamClient {
	return &streamClient{r: r, br: bufio.NewReaderSize(r, 64<<10), w: w, stop: stop}
}

// pipeline lets several goroutines call at once. Call it before they do.
func (c *streamClient) pipeline() {
	c.piped = true
	c.pending = map[int64]chan rpcReply{}
	go c.read()
}

// parseReply parses one line; ok is false for anything but a response.
func parseReply(line []byte) (r rpcReply, id int64, ok bool) {
	if json.Unmarshal(line, &r) != nil || r.Method != "" {
		return r, 0, false // not JSON, or a notification or request from the peer
	}
	id, err := strconv.ParseInt(string(r.ID), 10, 64)
	return r, id, err == nil
}

// startStdio starts cmd and returns a client on its stdio (not yet
// initialized). Its stderr goes to stderr when that is not nil.
func startStdio(cmd *exec.Cmd, stderr io.Writer) (*streamClient, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	// Wait for the child after stdin is closed, killing it after 10 s.
	stop := func() {
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	return newStreamClient(stdout, stdin, stop), nil
}

func (c *streamClient) read() {
	var err error
	for {
		var line []byte
		line, err = c.br.ReadBytes('\n')
		if err != nil {
			break
		}
		r, id, ok := parseReply(line)
		if !ok {
			continue
		}
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
	c.mu.Lock()
	c.readErr = fmt.Errorf("reading from the peer: %w", err)
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
}

func (c *streamClient) write(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(append(b, '\n'))
	return err
}

func (c *streamClient) call(method, params string) (json.RawMessage, error) {
	if c.piped {
		return c.callPipelined(method, params)
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	id := c.nextID.Add(1)
	if err := c.write(request(id, method, params)); err != nil {
		return nil, fmt.Errorf("writing %s: %w", method, err)
	}
	if d, ok := c.r.(interface{ SetReadDeadline(time.Time) error }); ok {
		d.SetReadDeadline(time.Now().Add(callTimeout))
	}
	for {
		line, err := c.br.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("%s: reading from the peer: %w", method, err)
		}
		if r, got, ok := parseReply(line); ok && got == id {
			return r.Result, r.err()
		}
	}
}

func (c *streamClient) callPipelined(method, params string) (json.RawMessage, error) {
	id := c.nextID.Add(1)
	ch := make(chan rpcReply, 1)
	c.mu.Lock()
	if c.readErr != nil {
		err := c.readErr
		c.mu.Unlock()
		return nil, err
	}
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.write(request(id, method, params)); err != nil {
		return nil, fmt.Errorf("writing %s: %w", method, err)
	}
	timer := time.NewTimer(callTimeout)
	defer timer.Stop()
	select {
	case r, ok := <-ch:
		if !ok {
			c.mu.Lock()
			defer c.mu.Unlock()
			return nil, c.readErr
		}
		return r.Result, r.err()
	case <-timer.C:
		return nil, fmt.Errorf("%s: no answer within %s", method, callTimeout)
	}
}

func (c *streamClient) notify(method string) error {
	return c.write([]byte(`{"jsonrpc":"2.0","method":` + strconv.Quote(method) + `}`))
}

// close closes the writing side and waits for the peer.
func (c *streamClient) close() {
	c.w.Close()
	if c.stop != nil {
		c.stop()
	}
}

// httpClient talks streamable HTTP to url: every message is a POST; the
// answer is a JSON body or an SSE stream whose data lines carry it.
type httpClient struct {
	url    string
	token  string // bearer token, "" for none
	hc     *http.Client
	nextID atomic.Int64

	mu      sync.Mutex // guards session
	session string     // Mcp-Session-Id from initialize
}

func newHTTPClient(url, token string) *httpClient {
	tr := &http.Transport{MaxIdleConns: 64, MaxIdleConnsPerHost: 64, IdleConnTimeout: time.Minute}
	return &httpClient{url: url, token: token, hc: &http.Client{Transport: tr}}
}

func (c *httpClient) post(ctx context.Context, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if c.token != "" {
		h.Set("Authorization", "Bearer "+c.token)
	}
	c.mu.Lock()
	if c.session != "" {
		h.Set("Mcp-Session-Id", c.session)
		h.Set("Mcp-Protocol-Version", benchProtocol)
	}
	c.mu.Unlock()
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		return nil, fmt.Errorf("HTTP %s: %s", resp.Status, strings.TrimSpace(string(msg)))
	}
	return resp, nil
}

func (c *httpClient) call(method, params string) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	id := c.nextID.Add(1)
	resp, err := c.post(ctx, request(id, method, params))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	defer resp.Body.Close()
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
		c.mu.Lock()
		if c.session == "" {
			c.session = s
		}
		c.mu.Unlock()
	}
	want := strconv.FormatInt(id, 10)
	var r rpcReply
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		r, err = readSSEReply(resp.Body, want)
	} else {
		err = json.NewDecoder(resp.Body).Decode(&r)
		if err == nil && string(r.ID) != want {
			err = fmt.Errorf("answer for id %s, want %s", r.ID, want)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	// Read to the end, so that the connection is reused.
	io.Copy(io.Discard, resp.Body)
	return r.Result, r.err()
}

// readSSEReply reads SSE events until one carries the response with id.
func readSSEReply(body io.Reader, id string) (rpcReply, error) {
	br := bufio.NewReader(body)
	var data []byte
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return rpcReply{}, fmt.Errorf("event stream ended before the answer: %w", err)
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, d...)
		case len(line) == 0 && len(data) > 0:
			var r rpcReply
			if err := json.Unmarshal(data, &r); err != nil {
				return r, fmt.Errorf("event data is not JSON: %w", err)
			}
			if r.Method == "" && string(r.ID) == id {
				return r, nil
			}
			data = data[:0]
		}
	}
}

func (c *httpClient) notify(method string) error {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	resp, err := c.post(ctx, []byte(`{"jsonrpc":"2.0","method":`+strconv.Quote(method)+`}`))
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// close ends the session (DELETE) and the idle connections.
func (c *httpClient) close() {
	c.mu.Lock()
	session := c.session
	c.mu.Unlock()
	if session != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
		if err == nil {
			req.Header.Set("Mcp-Session-Id", session)
			if c.token != "" {
				req.Header.Set("Authorization", "Bearer "+c.token)
			}
			if resp, err := c.hc.Do(req); err == nil {
				resp.Body.Close()
			}
		}
	}
	c.hc.CloseIdleConnections()
}
