package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/mcptray/mcptray/app/keyring"
)

// SecretNames lists the names of the ${keyring:NAME} secrets.
func (cl *Client) SecretNames(ctx context.Context) ([]string, error) {
	var l SecretList
	if err := cl.do(ctx, http.MethodGet, "/v1/secrets", &l); err != nil {
		return nil, err
	}
	return l.Names, nil
}

// SetSecret asks the instance to store ${keyring:name}; the servers using
// it restart. The value goes in the request body, nowhere else.
func (cl *Client) SetSecret(ctx context.Context, name, value string) error {
	body, _ := json.Marshal(secretBody{Value: value})
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, "http://mcptray/v1/secrets/"+url.PathEscape(name), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := cl.http.Do(req)
	if err != nil {
		return fmt.Errorf("talking to mcptray: %w", err)
	}
	defer resp.Body.Close()
	reply, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	var e apiError
	if json.Unmarshal(reply, &e) == nil && e.Error != "" {
		return errors.New(e.Error)
	}
	return fmt.Errorf("mcptray answered %s", resp.Status)
}

// RemoveSecret asks the instance to delete ${keyring:name}; one that is
// not stored wraps keyring.ErrNoSecret.
func (cl *Client) RemoveSecret(ctx context.Context, name string) error {
	err := cl.do(ctx, http.MethodDelete, "/v1/secrets/"+url.PathEscape(name), nil)
	var re remoteError
	if errors.As(err, &re) && errors.Is(err, ErrNoServer) {
		return remoteError{msg: re.msg, is: keyring.ErrNoSecret} // do maps every 404 to ErrNoServer
	}
	return err
}
