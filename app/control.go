package app

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"

	"github.com/mcptray/mcptray/app/trust"
	"github.com/mcptray/mcptray/mcp"
)

// controlHandler is the JSON control API served on DATA/mcptray.sock. The
// CLI (Client) and tests use it; DESIGN.md §12 is its contract.
//
//	GET  /v1/status                  Status
//	POST /v1/servers/{name}/enable   rewrite "disabled": false
//	POST /v1/servers/{name}/disable  rewrite "disabled": true
//	POST /v1/servers/{name}/restart  restart one server
//	POST /v1/servers/{name}/approve  allow a new or changed entry to run (409 when it does not wait)
//	GET  /v1/servers/{name}/tools    ToolList: the server's tools and their switches
//	POST /v1/servers/{name}/tools/{tool}/enable|disable   rewrite its disabledTools
//	POST /v1/mcp?server=&tools=      upgrade to a raw MCP stream (mcptray connect)
//	/v1/events…, /v1/history         events and tool-call history (control_events.go)
//	/v1/inbox…, /v1/inputs…          the secret inbox (control_inbox.go)
//	/v1/secrets…                     the ${keyring:NAME} secrets (control_secrets.go)
//	PUT  /v1/config                  replace mcp.json as mcptray's own edit (configedit.go)
//
// Errors are {"error": "one line"} with 400, 404 or 500; 403 when one of
// mcptray's servers, or a process of theirs, asks for what only the person
// may do (peer.go): enable, disable, approve, the tool switches, answers,
// forgetting an input, setting or removing a secret, PUT /v1/config.
func (c *Core) controlHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/status", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, c.Status())
	})
	mux.HandleFunc("POST /v1/servers/{name}/{action}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		var err error
		switch r.PathValue("action") {
		case "enable":
			if c.refuseServer(w, r, "turn a server on") {
				return
			}
			err = c.SetEnabled(name, true)
		case "disable":
			if c.refuseServer(w, r, "turn a server off") {
				return
			}
			err = c.SetEnabled(name, false)
		case "restart":
			err = c.Restart(name)
		case "approve":
			if c.refuseServer(w, r, "approve what a server runs") {
				return
			}
			err = c.ApproveServer(name)
		default:
			writeJSON(w, http.StatusNotFound, apiError{Error: "unknown action " + r.PathValue("action")})
			return
		}
		switch {
		case errors.Is(err, ErrNoServer):
			writeJSON(w, http.StatusNotFound, apiError{Error: err.Error()})
		case errors.Is(err, trust.ErrNotWaiting):
			writeJSON(w, http.StatusConflict, apiError{Error: err.Error()})
		case err != nil:
			writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
		default:
			writeJSON(w, http.StatusOK, struct{}{})
		}
	})
	mux.HandleFunc("GET /v1/servers/{name}/tools", func(w http.ResponseWriter, r *http.Request) {
		l, err := c.Tools(r.PathValue("name"))
		if err != nil {
			writeJSON(w, http.StatusNotFound, apiError{Error: err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, l)
	})
	mux.HandleFunc("POST /v1/servers/{name}/tools/{tool}/{action}", c.personOnly("turn a tool on or off", func(w http.ResponseWriter, r *http.Request) {
		var on bool
		switch r.PathValue("action") {
		case "enable":
			on = true
		case "disable":
		default:
			writeJSON(w, http.StatusNotFound, apiError{Error: "unknown action " + r.PathValue("action")})
			return
		}
		err := c.SetToolEnabled(r.PathValue("name"), r.PathValue("tool"), on)
		switch {
		case errors.Is(err, ErrNoServer):
			writeJSON(w, http.StatusNotFound, apiError{Error: err.Error()})
		case err != nil:
			writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
		default:
			writeJSON(w, http.StatusOK, struct{}{})
		}
	}))
	mux.HandleFunc("POST /v1/mcp", c.serveMCPUpgrade)
	c.eventRoutes(mux)  // control_events.go
	c.inboxRoutes(mux)  // control_inbox.go
	c.configRoutes(mux) // configedit.go
	c.secretRoutes(mux) // control_secrets.go
	return mux
}

// mcpUpgrade is the Upgrade token for a raw newline-delimited JSON-RPC
// stream on the control socket.
const mcpUpgrade = "mcp-stdio"

// serveMCPUpgrade turns a control connection into an MCP session with the
// gateway: `mcptray connect` pipes the assistant's stdio through it.
func (c *Core) serveMCPUpgrade(w http.ResponseWriter, r *http.Request) {
	opts := mcp.UpstreamOptions{Server: r.URL.Query().Get("server"), Tools: r.URL.Query().Get("tools")}
	if opts.Tools == "" {
		opts.Tools = c.toolsMode()
	}
	switch opts.Tools {
	case "live", "stable", "dynamic":
	default:
		writeJSON(w, http.StatusBadRequest, apiError{Error: fmt.Sprintf("--tools must be live, stable or dynamic, got %q", opts.Tools)})
		return
	}
	if opts.Server != "" {
		c.mu.Lock()
		_, ok := c.servers[opts.Server]
		c.mu.Unlock()
		if !ok {
			writeJSON(w, http.StatusNotFound, apiError{Error: fmt.Sprintf("no server named %q in %s", opts.Server, c.opts.ConfigPath)})
			return
		}
	}
	upgrade := r.Header.Get("Upgrade")
	if upgrade != mcpUpgrade && upgrade != fdsUpgrade {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "expected Upgrade: " + mcpUpgrade + " or " + fdsUpgrade})
		return
	}
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, apiError{Error: err.Error()})
		return
	}
	brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " + upgrade + "\r\n\r\n")
	if err := brw.Flush(); err != nil {
		conn.Close()
		return
	}
	if upgrade == fdsUpgrade {
		c.serveHandedStdio(r.Context(), conn, opts)
		return
	}
	stream := &bufferedConn{Conn: conn, r: brw.Reader}
	if err := c.gw.ServeStream(r.Context(), stream, opts); err != nil {
		c.log.Debug("MCP stream ended", "err", err)
	}
	conn.Close()
}

// bufferedConn reads what the HTTP server buffered before the upgrade,
// then the connection.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }

// SyscallConn is the connection's: the gateway writes replies to it inline
// and, when the peer ends its input, checks whether it still reads.
func (b *bufferedConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := b.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	return sc.SyscallConn()
}

type apiError struct {
	Error string `json:"error"`
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// CloseWrite half-closes the stream (the peer reads EOF) where the
// connection supports it.
func (b *bufferedConn) CloseWrite() error {
	if cw, ok := b.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return b.Conn.Close()
}
