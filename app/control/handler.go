package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"syscall"

	"github.com/mcptray/mcptray/app/config"
)

// Handler is the JSON control API served on DATA/mcptray.sock. The
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
//	/v1/events…, /v1/history         events and tool-call history (events.go)
//	/v1/inbox…, /v1/inputs…          the secret inbox (inbox.go)
//	/v1/secrets…                     the ${keyring:NAME} secrets (secrets.go)
//	PUT  /v1/config                  replace mcp.json as mcptray's own edit (config.go)
//	GET  /v1/status/watch, /v1/events/watch, /v1/settings   streams of changes (watch.go)
//	POST /v1/windows/{kind}          a window of another process, held while it lasts (windows.go)
//
// Errors are {"error": "one line"} with 400, 404 or 500; 403 when one of
// mcptray's servers, or a process of theirs, asks for what only the person
// may do (peer.go): enable, disable, approve, the tool switches, answers,
// forgetting an input, setting or removing a secret, PUT /v1/config,
// registering a window.
type Handler struct {
	b   Backend
	log *slog.Logger
	mux *http.ServeMux
}

// NewHandler serves the control API of b; log gets what a client is not
// told (an MCP session's end, stdio that could not be received).
func NewHandler(b Backend, log *slog.Logger) *Handler {
	if log == nil {
		log = slog.Default()
	}
	h := &Handler{b: b, log: log, mux: http.NewServeMux()}
	h.routes()
	return h
}

// ServeHTTP serves one request of the control API.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// ConnContext is the control server's http.Server.ConnContext: it records
// the process on the other end of the connection (peer.go).
func (h *Handler) ConnContext(ctx context.Context, conn net.Conn) context.Context {
	return h.peerContext(ctx, conn)
}

func (h *Handler) routes() {
	mux := h.mux
	mux.HandleFunc("GET /v1/status", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, h.b.Status())
	})
	mux.HandleFunc("POST /v1/servers/{name}/{action}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		var err error
		switch r.PathValue("action") {
		case "enable":
			if h.refuseServer(w, r, "turn a server on") {
				return
			}
			err = h.b.SetEnabled(name, true)
		case "disable":
			if h.refuseServer(w, r, "turn a server off") {
				return
			}
			err = h.b.SetEnabled(name, false)
		case "restart":
			err = h.b.Restart(name)
		case "approve":
			if h.refuseServer(w, r, "approve what a server runs") {
				return
			}
			err = h.b.ApproveServer(name)
		default:
			writeJSON(w, http.StatusNotFound, apiError{Error: "unknown action " + r.PathValue("action")})
			return
		}
		switch {
		case errors.Is(err, config.ErrNoServer):
			writeJSON(w, http.StatusNotFound, apiError{Error: err.Error()})
		case errors.Is(err, config.ErrNotWaiting):
			writeJSON(w, http.StatusConflict, apiError{Error: err.Error()})
		case err != nil:
			writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
		default:
			writeJSON(w, http.StatusOK, struct{}{})
		}
	})
	mux.HandleFunc("GET /v1/servers/{name}/tools", func(w http.ResponseWriter, r *http.Request) {
		l, err := h.b.Tools(r.PathValue("name"))
		if err != nil {
			writeJSON(w, http.StatusNotFound, apiError{Error: err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, l)
	})
	mux.HandleFunc("POST /v1/servers/{name}/tools/{tool}/{action}", h.personOnly("turn a tool on or off", func(w http.ResponseWriter, r *http.Request) {
		var on bool
		switch r.PathValue("action") {
		case "enable":
			on = true
		case "disable":
		default:
			writeJSON(w, http.StatusNotFound, apiError{Error: "unknown action " + r.PathValue("action")})
			return
		}
		err := h.b.SetToolEnabled(r.PathValue("name"), r.PathValue("tool"), on)
		switch {
		case errors.Is(err, config.ErrNoServer):
			writeJSON(w, http.StatusNotFound, apiError{Error: err.Error()})
		case err != nil:
			writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
		default:
			writeJSON(w, http.StatusOK, struct{}{})
		}
	}))
	mux.HandleFunc("POST /v1/mcp", h.serveMCPUpgrade)
	h.authRoutes()
	h.eventRoutes(mux)  // events.go
	h.inboxRoutes(mux)  // inbox.go
	h.configRoutes(mux) // config.go
	h.secretRoutes(mux) // secrets.go
	h.watchRoutes(mux)  // watch.go
	h.windowRoutes(mux) // windows.go
}

// mcpUpgrade is the Upgrade token for a raw newline-delimited JSON-RPC
// stream on the control socket.
const mcpUpgrade = "mcp-stdio"

// fdsUpgrade is the Upgrade token with which `mcptray connect` hands its
// own stdin and stdout to the instance (SCM_RIGHTS on the control socket)
// instead of relaying every byte: the assistant's pipes then lead straight
// into the gateway, and connect only waits. It saves a process hop per
// message (see cli/bench_gateway_test.go). Unix only (fds_unix.go):
// Windows relays.
const fdsUpgrade = "mcp-fds"

// serveMCPUpgrade turns a control connection into an MCP session with the
// gateway: `mcptray connect` pipes the assistant's stdio through it.
func (h *Handler) serveMCPUpgrade(w http.ResponseWriter, r *http.Request) {
	opts := mcpOptions{Server: r.URL.Query().Get("server"), Tools: r.URL.Query().Get("tools")}
	if opts.Tools == "" {
		opts.Tools = h.b.ToolsMode()
	}
	switch opts.Tools {
	case "live", "stable", "dynamic":
	default:
		writeJSON(w, http.StatusBadRequest, apiError{Error: fmt.Sprintf("--tools must be live, stable or dynamic, got %q", opts.Tools)})
		return
	}
	if opts.Server != "" {
		if err := h.b.CheckServer(opts.Server); err != nil {
			writeJSON(w, http.StatusNotFound, apiError{Error: err.Error()})
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
		h.serveHandedStdio(r.Context(), conn, opts)
		return
	}
	stream := &bufferedConn{Conn: conn, r: brw.Reader}
	if err := h.b.ServeMCP(r.Context(), stream, opts.Server, opts.Tools); err != nil {
		h.log.Debug("MCP stream ended", "err", err)
	}
	conn.Close()
}

// mcpOptions are a session's: its server ("" for all) and tools mode.
type mcpOptions struct{ Server, Tools string }

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
