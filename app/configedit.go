package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/store"
)

// Edits of mcp.json that mcptray makes itself run what they add without a
// question (launch.go). Inside the core that is editConfig; these are the
// ways for the commands that write the file themselves (`mcptray setup`,
// `mcptray import`): through the running instance (Client.ReplaceConfig),
// or, with none running, EditConfigFile, which records the approvals in
// the data dir's store before it writes.

// ErrConfigChanged is wrapped by ReplaceConfig when mcp.json is no longer
// what the caller read: read it again and redo the edit.
var ErrConfigChanged = errors.New("mcp.json changed meanwhile")

// ReplaceConfig replaces mcp.json, whose bytes were old, with new, as
// mcptray's own edit; it fails with ErrConfigChanged when the file is no
// longer old.
func (c *Core) ReplaceConfig(old, new []byte) error {
	return c.editConfig(func(data []byte) ([]byte, error) {
		if !bytes.Equal(data, old) {
			return nil, ErrConfigChanged
		}
		return new, nil
	})
}

// replaceBody is the body of PUT /v1/config (both files base64, as
// encoding/json writes []byte).
type replaceBody struct {
	Old []byte `json:"old"`
	New []byte `json:"new"`
}

// configRoutes adds PUT /v1/config: ReplaceConfig (409 when the file
// changed meanwhile; 403 to a server's process, peer.go: what mcptray
// writes itself runs without a question).
func (c *Core) configRoutes(mux *http.ServeMux) {
	mux.HandleFunc("PUT /v1/config", c.personOnly("make mcptray's own edits of mcp.json", func(w http.ResponseWriter, r *http.Request) {
		var b replaceBody
		if err := json.NewDecoder(io.LimitReader(r.Body, 3*config.MaxFileSize)).Decode(&b); err != nil {
			writeJSON(w, http.StatusBadRequest, apiError{Error: "the body is not {\"old\", \"new\"}"})
			return
		}
		switch err := c.ReplaceConfig(b.Old, b.New); {
		case errors.Is(err, ErrConfigChanged):
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
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, "http://mcptray/v1/config", bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := cl.http.Do(req)
	if err != nil {
		return fmt.Errorf("talking to mcptray: %w", err)
	}
	defer resp.Body.Close()
	var e apiError
	json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&e)
	switch {
	case resp.StatusCode == http.StatusOK:
		return nil
	case resp.StatusCode == http.StatusConflict:
		return remoteError{msg: e.Error, is: ErrConfigChanged}
	case e.Error != "":
		return errors.New(e.Error)
	}
	return fmt.Errorf("mcptray answered %s", resp.Status)
}

// EditConfigFile rewrites the config at path with edit as mcptray's own
// edit, with no instance running on data (it fails when one does): the
// launches the edit adds or changes are recorded as approved in data's
// store first. env resolves ${self} and ~ for those launches (Dir may be
// empty).
func EditConfigFile(path, data string, env config.Env, edit func([]byte) ([]byte, error)) error {
	return editFile(path, func(old []byte) ([]byte, error) {
		out, err := edit(old)
		if err != nil || bytes.Equal(out, old) {
			return out, err
		}
		if _, err := os.Stat(dbPath(data)); errors.Is(err, os.ErrNotExist) {
			return out, nil // never started: its first start approves what is there
		}
		lock, err := lockInstance(data)
		if err != nil {
			return nil, err
		}
		defer lock.release()
		st, err := store.Open(dbPath(data))
		if err != nil {
			return nil, fmt.Errorf("opening database: %w", err)
		}
		defer st.Close()
		if env.Dir == "" {
			if abs, err := filepath.Abs(path); err == nil {
				env.Dir = filepath.Dir(abs)
			}
		}
		if env.LaunchKey, err = loadLaunchKey(data); err != nil {
			return nil, err
		}
		env.Root = os.Geteuid() == 0
		before, _ := config.Launches(old, env)
		after, err := config.Launches(out, env)
		if err != nil {
			return nil, err
		}
		for name, l := range after {
			if fp := l.Fingerprint(); fp != "" && before[name].Fingerprint() != fp {
				a := store.LaunchApproval{Server: name, Fingerprint: fp, Command: l.CommandLine(), How: store.ApprovedByMcptray, Approved: time.Now().UTC(),
					Values: l.Values, Files: l.Files}
				if err := st.ApproveLaunch(context.Background(), a); err != nil {
					return nil, err
				}
			}
		}
		return out, nil
	})
}

// OwnEdit is how a command writes mcp.json (at path, of the instance on
// data dir data) as mcptray's own edit, so that what it adds or changes
// needs no approval: through the running instance cl (ReplaceConfig), or
// with none (cl nil) EditConfigFile. old is what the command read (nil:
// there was no file, which is simply written). Either fails with
// ErrConfigChanged when the file is no longer old.
func OwnEdit(ctx context.Context, cl *Client, path, data string) func(old, new []byte) error {
	return func(old, new []byte) error {
		switch {
		case cl != nil:
			return cl.ReplaceConfig(ctx, old, new)
		case old == nil:
			return config.WriteAtomic(path, new)
		}
		return EditConfigFile(path, data, fileEnv(path), func(cur []byte) ([]byte, error) {
			if !bytes.Equal(cur, old) {
				return nil, ErrConfigChanged
			}
			return new, nil
		})
	}
}
