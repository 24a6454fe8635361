package app

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/keyring"
)

// secretRoutes adds the ${keyring:NAME} secrets to the control API:
//
//	GET    /v1/secrets          {"names": [...]} — never a value
//	PUT    /v1/secrets/{name}   body {"value": "..."}: store it; the servers
//	                            using it restart (Core.SetSecret)
//	DELETE /v1/secrets/{name}   delete it; 404 when there is none
//
// A value travels only in a request body on the socket (mode 0600), and
// no reply or log line carries it. Setting and removing are the person's
// alone: 403 to a server's process (peer.go).
func (c *Core) secretRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/secrets", func(w http.ResponseWriter, r *http.Request) {
		names, err := c.SecretNames()
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, apiError{Error: err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, SecretList{Names: names})
	})
	mux.HandleFunc("PUT /v1/secrets/{name}", c.personOnly("set a secret", func(w http.ResponseWriter, r *http.Request) {
		var body secretBody
		if err := json.NewDecoder(io.LimitReader(r.Body, 2*config.MaxSecretValue)).Decode(&body); err != nil {
			// The decoder's message may quote the body: say only what was expected.
			writeJSON(w, http.StatusBadRequest, apiError{Error: `the request is not a JSON object {"value"}`})
			return
		}
		name := r.PathValue("name")
		if err := config.CheckSecretName(name); err != nil {
			writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
			return
		}
		if err := c.SetSecret(name, body.Value); err != nil {
			writeJSON(w, http.StatusInternalServerError, apiError{Error: err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, struct{}{})
	}))
	mux.HandleFunc("DELETE /v1/secrets/{name}", c.personOnly("remove a secret", func(w http.ResponseWriter, r *http.Request) {
		switch err := c.RemoveSecret(r.PathValue("name")); {
		case err == nil:
			writeJSON(w, http.StatusOK, struct{}{})
		case errors.Is(err, keyring.ErrNoSecret):
			writeJSON(w, http.StatusNotFound, apiError{Error: err.Error()})
		default:
			writeJSON(w, http.StatusInternalServerError, apiError{Error: err.Error()})
		}
	}))
}

// SecretList is what GET /v1/secrets and `mcptray secret list --json`
// print.
type SecretList struct {
	Names []string `json:"names"`
}

type secretBody struct {
	Value string `json:"value"`
}
