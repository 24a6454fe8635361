package google

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	"golang.org/x/oauth2"
)

// Google's OAuth endpoints, used when the client file names none.
const (
	GoogleAuthURI  = "https://accounts.google.com/o/oauth2/auth"
	GoogleTokenURI = "https://oauth2.googleapis.com/token"
)

// ClientEntry is the keyring entry holding the OAuth client: its id and
// secret, and the endpoints from its file.
const ClientEntry = "google/client"

// consoleHint says where a Desktop app client comes from.
const consoleHint = `in the Google Cloud console (https://console.cloud.google.com/apis/credentials), ` +
	`choose Create credentials → OAuth client ID → Application type "Desktop app", ` +
	`then download its JSON file`

// OAuthClient is the user's own "Desktop app" OAuth client.
type OAuthClient struct {
	ID       string `json:"client_id"`
	Secret   string `json:"client_secret"`
	AuthURI  string `json:"auth_uri"`
	TokenURI string `json:"token_uri"`
}

// ParseClientFile reads the JSON file Google's console downloads for a
// "Desktop app" client ({"installed": {...}}). Anything else gets an error
// saying what the file is and what to download instead.
func ParseClientFile(b []byte) (*OAuthClient, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		var v any
		if json.Unmarshal(b, &v) == nil {
			return nil, fmt.Errorf("this JSON file is not an OAuth client (it is not a JSON object); %s", consoleHint)
		}
		return nil, fmt.Errorf("this file is not JSON, so not the OAuth client file Google's console downloads; %s", consoleHint)
	}
	if raw, ok := top["installed"]; ok {
		var c OAuthClient
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, fmt.Errorf(`the "installed" part of this client file is malformed (%v); download the file again: %s`, err, consoleHint)
		}
		var missing []string
		if c.ID == "" {
			missing = append(missing, "client_id")
		}
		if c.Secret == "" {
			missing = append(missing, "client_secret")
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("this Desktop app client file has no %s; download the file again: %s", strings.Join(missing, " and "), consoleHint)
		}
		if c.AuthURI == "" {
			c.AuthURI = GoogleAuthURI
		}
		if c.TokenURI == "" {
			c.TokenURI = GoogleTokenURI
		}
		for _, u := range []struct{ name, v string }{{"auth_uri", c.AuthURI}, {"token_uri", c.TokenURI}} {
			p, err := url.Parse(u.v)
			if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
				return nil, fmt.Errorf("this client file's %s %q is not an http(s) URL; download the file again: %s", u.name, u.v, consoleHint)
			}
		}
		return &c, nil
	}
	switch {
	case top["web"] != nil:
		return nil, fmt.Errorf(`this is a "Web application" OAuth client, which cannot sign in on this computer's loopback address; mcptray needs a "Desktop app" client: %s`, consoleHint)
	case jsonString(top["type"]) == "service_account":
		return nil, fmt.Errorf("this is a service account key, which cannot read a person's Calendar or Gmail; mcptray needs a \"Desktop app\" OAuth client: %s", consoleHint)
	case jsonString(top["type"]) == "authorized_user":
		return nil, fmt.Errorf("this is a gcloud user credential (authorized_user), not an OAuth client; mcptray needs a \"Desktop app\" OAuth client: %s", consoleHint)
	default:
		return nil, fmt.Errorf(`this JSON file is not an OAuth client (it has no "installed" part); mcptray needs a "Desktop app" client: %s`, consoleHint)
	}
}

func jsonString(raw json.RawMessage) string {
	var s string
	json.Unmarshal(raw, &s)
	return s
}

// RevokeURL is where tokens of this client are revoked: the token URI with
// its last path element "token" replaced by "revoke" (Google's
// https://oauth2.googleapis.com/revoke).
func (c *OAuthClient) RevokeURL() (string, error) {
	u, err := url.Parse(c.TokenURI)
	if err != nil || path.Base(u.Path) != "token" {
		return "", fmt.Errorf("no revocation endpoint known for the token URI %s (it does not end in /token)", c.TokenURI)
	}
	u.Path = path.Join(path.Dir(u.Path), "revoke")
	u.RawQuery = ""
	return u.String(), nil
}

// config is the x/oauth2 configuration of the client.
func (c *OAuthClient) config(redirect string, scopes []string) *oauth2.Config {
	return &oauth2.Config{
		ClientID:     c.ID,
		ClientSecret: c.Secret,
		Endpoint: oauth2.Endpoint{
			AuthURL:  c.AuthURI,
			TokenURL: c.TokenURI,
			// As golang.org/x/oauth2/google's Endpoint: Google takes the
			// client's credentials in the form.
			AuthStyle: oauth2.AuthStyleInParams,
		},
		RedirectURL: redirect,
		Scopes:      scopes,
	}
}

// ErrNoClient means no OAuth client has been imported.
var ErrNoClient = errors.New("no Google OAuth client is set up: import yours with `mcptray auth google client FILE` (" + consoleHint + ")")

// SetClient stores c in the keyring entry google/client.
func SetClient(st Store, c *OAuthClient) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := st.Set(ClientEntry, string(b)); err != nil {
		return fmt.Errorf("storing the OAuth client in the keyring: %w", err)
	}
	return nil
}

// LoadClient reads the OAuth client from the keyring; ErrNoClient when
// none was imported.
func LoadClient(st Store) (*OAuthClient, error) {
	v, err := st.Get(ClientEntry)
	if errors.Is(err, ErrNotFound) {
		return nil, ErrNoClient
	}
	if err != nil {
		return nil, fmt.Errorf("reading the Google OAuth client from the keyring: %w", err)
	}
	var c OAuthClient
	if err := json.Unmarshal([]byte(v), &c); err != nil || c.ID == "" || c.Secret == "" {
		return nil, fmt.Errorf("the keyring entry %s is not an OAuth client; import yours again with `mcptray auth google client FILE`", ClientEntry)
	}
	if c.AuthURI == "" {
		c.AuthURI = GoogleAuthURI
	}
	if c.TokenURI == "" {
		c.TokenURI = GoogleTokenURI
	}
	return &c, nil
}
