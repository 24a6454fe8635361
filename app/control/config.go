package control

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/mcptray/mcptray/app/config"
)

// mcptray's own edits of mcp.json through the running instance: the
// commands that write the file themselves (app.OwnFile) send each edit
// here, and the instance's config.File checks the file is still what was
// read, approves what the edit adds or changes, and writes it.

// replaceBody is the body of PUT /v1/config (both files base64, as
// encoding/json writes []byte).
type replaceBody struct {
	Old []byte `json:"old"`
	New []byte `json:"new"`
}

// configRoutes adds PUT /v1/config: Backend.ReplaceConfig (409 when the file
// changed meanwhile; 403 to a server's process, peer.go: what mcptray
// writes itself runs without a question).
func (h *Handler) configRoutes(mux *http.ServeMux) {
	mux.HandleFunc("PUT /v1/config", h.personOnly("make mcptray's own edits of mcp.json", func(w http.ResponseWriter, r *http.Request) {
		var b replaceBody
		if err := json.NewDecoder(io.LimitReader(r.Body, 3*config.MaxFileSize)).Decode(&b); err != nil {
			writeJSON(w, http.StatusBadRequest, apiError{Error: "the body is not {\"old\", \"new\"}"})
			return
		}
		switch err := h.b.ReplaceConfig(b.Old, b.New); {
		case errors.Is(err, config.ErrChanged):
			writeJSON(w, http.StatusConflict, apiError{Error: err.Error()})
		case err != nil:
			writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
		default:
			writeJSON(w, http.StatusOK, struct{}{})
		}
	}))
}

// ReplaceConfig asks the instance to replace mcp.json (read as old) with
// new, as mcptray's own edit.
func (cl *Client) ReplaceConfig(ctx context.Context, old, new []byte) error {
	body, _ := json.Marshal(replaceBody{Old: old, New: new})
	r, err := cl.request(ctx, http.MethodPut, "/v1/config", body)
	if err != nil {
		return err
	}
	switch r.status {
	case http.StatusOK:
		return nil
	case http.StatusConflict:
		return r.err(config.ErrChanged)
	}
	return r.err(nil)
}
