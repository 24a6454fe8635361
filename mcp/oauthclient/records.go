package oauthclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"golang.org/x/oauth2"
)

// pointer is server/<entry>: which issuer and URL the entry's token is for.
type pointer struct {
	Issuer string `json:"issuer"`
	URL    string `json:"url"`
}

// tokenRecord is token/<issuer>#<entry>: the token set, with what a
// refresh and a revocation need.
type tokenRecord struct {
	Issuer             string    `json:"issuer"`
	URL                string    `json:"url"`
	Resource           string    `json:"resource,omitempty"`
	TokenEndpoint      string    `json:"token_endpoint"`
	RevocationEndpoint string    `json:"revocation_endpoint,omitempty"`
	Registration       string    `json:"registration"` // dynamic, preregistered, metadata-document
	ClientID           string    `json:"client_id"`
	ClientSecret       string    `json:"client_secret,omitempty"` // a dynamic registration's only
	AuthMethod         string    `json:"auth_method,omitempty"`   // client_secret_post, client_secret_basic, none
	AccessToken        string    `json:"access_token"`
	RefreshToken       string    `json:"refresh_token,omitempty"`
	TokenType          string    `json:"token_type,omitempty"`
	Expiry             time.Time `json:"expiry,omitzero"`
	Scopes             []string  `json:"scopes,omitempty"`
}

func (r *tokenRecord) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: r.AccessToken, TokenType: "Bearer", RefreshToken: r.RefreshToken, Expiry: r.Expiry}
}

// registration is reg/<issuer>: a dynamic registration, reused by every
// entry on that issuer while its redirect port can be had.
type registration struct {
	Issuer       string    `json:"issuer"`
	ClientID     string    `json:"client_id"`
	ClientSecret string    `json:"client_secret,omitempty"`
	AuthMethod   string    `json:"auth_method,omitempty"`
	RedirectURI  string    `json:"redirect_uri"`
	Port         int       `json:"port"`
	Registered   time.Time `json:"registered"`
}

func pointerKey(server string) string       { return "server/" + server }
func tokenKey(issuer, server string) string { return "token/" + issuer + "#" + server }
func regKey(issuer string) string           { return "reg/" + issuer }

// getJSON reads key into v; false when the store has no value.
func (c *Client) getJSON(key string, v any) (bool, error) {
	s, err := c.store.Get(key)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading %s from the keyring: %w", keyKind(key), err)
	}
	if err := json.Unmarshal([]byte(s), v); err != nil {
		// Not the value's text: it holds tokens.
		return false, fmt.Errorf("the keyring's %s is not valid JSON; sign in again", keyKind(key))
	}
	return true, nil
}

func (c *Client) setJSON(key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := c.store.Set(key, string(b)); err != nil {
		return fmt.Errorf("storing %s in the keyring: %w", keyKind(key), err)
	}
	return nil
}

func (c *Client) delete(key string) error {
	if err := c.store.Delete(key); err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("deleting %s from the keyring: %w", keyKind(key), err)
	}
	return nil
}

// keyKind names what a key holds, for errors.
func keyKind(key string) string {
	switch {
	case len(key) > 6 && key[:6] == "token/":
		return "the sign-in's token"
	case len(key) > 4 && key[:4] == "reg/":
		return "the client registration"
	}
	return "the sign-in's record"
}

// current is e's token record as last read or written, read from the
// Store when there is none yet; nil when there is none for e's URL.
func (c *Client) current(e Entry) (*tokenRecord, error) {
	c.mu.Lock()
	ce, ok := c.cache[e.Server]
	c.mu.Unlock()
	if ok && (ce.r == nil || ce.r.URL == e.URL) {
		return ce.r, nil
	}
	return c.load(e)
}

// load reads e's token record from the Store; nil when there is none for
// e's URL.
func (c *Client) load(e Entry) (*tokenRecord, error) {
	r, err := c.read(e)
	if err != nil {
		return nil, err
	}
	if r == nil || r.URL != e.URL {
		c.remember(e.Server, nil) // another URL's token is never served
		return nil, nil
	}
	c.remember(e.Server, r)
	return r, nil
}

func (c *Client) remember(server string, r *tokenRecord) {
	c.mu.Lock()
	c.cache[server] = cached{r: r}
	c.mu.Unlock()
}

func (c *Client) read(e Entry) (*tokenRecord, error) {
	var p pointer
	ok, err := c.getJSON(pointerKey(e.Server), &p)
	if err != nil || !ok {
		return nil, err
	}
	var r tokenRecord
	ok, err = c.getJSON(tokenKey(p.Issuer, e.Server), &r)
	if err != nil || !ok {
		return nil, err
	}
	return &r, nil
}

// save stores r as e's token, and forgets a token e had from another
// issuer.
func (c *Client) save(e Entry, r *tokenRecord) error {
	var old pointer
	had, _ := c.getJSON(pointerKey(e.Server), &old)
	if err := c.setJSON(tokenKey(r.Issuer, e.Server), r); err != nil {
		return err
	}
	if err := c.setJSON(pointerKey(e.Server), pointer{Issuer: r.Issuer, URL: r.URL}); err != nil {
		return err
	}
	c.remember(e.Server, r)
	if had && old.Issuer != r.Issuer {
		return c.delete(tokenKey(old.Issuer, e.Server))
	}
	return nil
}

// forget deletes e's token and pointer.
func (c *Client) forget(e Entry) error {
	c.remember(e.Server, nil)
	var p pointer
	ok, err := c.getJSON(pointerKey(e.Server), &p)
	if err != nil {
		return err
	}
	if ok {
		if err := c.delete(tokenKey(p.Issuer, e.Server)); err != nil {
			return err
		}
	}
	return c.delete(pointerKey(e.Server))
}
