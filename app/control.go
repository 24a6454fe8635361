package app

import (
	"encoding/json"
	"errors"
	"net/http"
)

// controlHandler is the JSON control API served on DATA/mcptray.sock. The
// CLI (Client) and tests use it; DESIGN.md §12 is its contract.
//
//	GET  /v1/status                  Status
//	POST /v1/servers/{name}/enable   rewrite "disabled": false
//	POST /v1/servers/{name}/disable  rewrite "disabled": true
//	POST /v1/servers/{name}/restart  restart one server
//
// Errors are {"error": "one line"} with 400, 404 or 500.
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
			err = c.SetEnabled(name, true)
		case "disable":
			err = c.SetEnabled(name, false)
		case "restart":
			err = c.Restart(name)
		default:
			writeJSON(w, http.StatusNotFound, apiError{Error: "unknown action " + r.PathValue("action")})
			return
		}
		switch {
		case errors.Is(err, ErrNoServer):
			writeJSON(w, http.StatusNotFound, apiError{Error: err.Error()})
		case err != nil:
			writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
		default:
			writeJSON(w, http.StatusOK, struct{}{})
		}
	})
	return mux
}

type apiError struct {
	Error string `json:"error"`
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}
