package control

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"

	"github.com/mcptray/mcptray/app/config"
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
	r, err := cl.request(ctx, http.MethodPut, "/v1/secrets/"+url.PathEscape(name), body)
	if err != nil {
		return err
	}
	if r.status != http.StatusOK {
		return r.err(nil)
	}
	return nil
}

// RemoveSecret asks the instance to delete ${keyring:name}; one that is
// not stored wraps config.ErrNoSecret.
func (cl *Client) RemoveSecret(ctx context.Context, name string) error {
	err := cl.do(ctx, http.MethodDelete, "/v1/secrets/"+url.PathEscape(name), nil)
	var re remoteError
	if errors.As(err, &re) && errors.Is(err, config.ErrNoServer) {
		return remoteError{msg: re.msg, is: config.ErrNoSecret} // do maps every 404 to ErrNoServer
	}
	return err
}
