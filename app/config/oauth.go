package config

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// OAuth is an HTTP entry's OAuth client settings: a pre-registered client
// in Claude Code's spelling ("oauth": {"clientId", "clientSecret",
// "scopes"}) and the Client ID Metadata Document URL mcptray presents
// where the server supports it ("x-mcptray": {"oauth":
// {"clientMetadataUrl"}}). With neither, the sign-in registers a client
// dynamically. A Server has one only when the entry says something of it.
type OAuth struct {
	ClientID string
	// ClientSecret is resolved from its ${keyring:NAME}; the file never
	// holds it as a literal.
	ClientSecret      string
	Scopes            []string
	ClientMetadataURL string
	// CallbackPort is the loopback port the pre-registered client's
	// redirect URI names ("callbackPort"); 0: any.
	CallbackPort int
}

// readOAuth reads the entry's "oauth" block and its
// "x-mcptray".oauth.clientMetadataUrl, type-checked and unresolved. Unknown
// keys inside either are ignored, like an entry's.
func readOAuth(n *node, text []byte) (*rawOAuth, error) {
	var o *rawOAuth
	if v := n.get("oauth"); v != nil {
		if v.kind != kindObject {
			return nil, fmt.Errorf(`"oauth" must be an object, got %s`, v.kind)
		}
		o = &rawOAuth{}
		for _, f := range []struct {
			key string
			dst *string
		}{{"clientId", &o.clientID}, {"clientSecret", &o.clientSecret}} {
			m := v.get(f.key)
			if m == nil {
				continue
			}
			if m.kind != kindString {
				return nil, fmt.Errorf("oauth.%s must be a string, got %s", f.key, m.kind)
			}
			*f.dst = m.str(text)
		}
		if m := v.get("scopes"); m != nil {
			if m.kind != kindArray {
				return nil, fmt.Errorf("oauth.scopes must be an array of strings, got %s", m.kind)
			}
			for i, s := range m.elems {
				if s.kind != kindString {
					return nil, fmt.Errorf("oauth.scopes[%d] must be a string, got %s", i, s.kind)
				}
				scope := s.str(text)
				if scope == "" || strings.ContainsAny(scope, " \t\r\n\"\\") {
					return nil, fmt.Errorf("oauth.scopes[%d] must be one scope: no spaces or quotes", i)
				}
				o.scopes = append(o.scopes, scope)
			}
		}
		if m := v.get("callbackPort"); m != nil {
			p, err := strconv.Atoi(string(m.raw(text)))
			if m.kind != kindNumber || err != nil || p < 1 || p > 65535 {
				return nil, errors.New("oauth.callbackPort must be a port number, 1 to 65535")
			}
			o.callbackPort = p
		}
		if o.clientSecret != "" && !IsKeyringRef(o.clientSecret) {
			// The value is not repeated: it is a secret.
			return nil, errors.New(`oauth.clientSecret must be a ${keyring:NAME} reference, not the secret itself: store it with "mcptray secret set NAME" and write "${keyring:NAME}"`)
		}
		if o.clientSecret != "" && o.clientID == "" {
			return nil, errors.New("oauth.clientSecret needs oauth.clientId")
		}
	}
	if x := n.get("x-mcptray"); x != nil && x.kind == kindObject {
		if v := x.get("oauth"); v != nil {
			if v.kind != kindObject {
				return nil, fmt.Errorf(`x-mcptray.oauth must be an object, got %s`, v.kind)
			}
			if m := v.get("clientMetadataUrl"); m != nil {
				if m.kind != kindString {
					return nil, fmt.Errorf("x-mcptray.oauth.clientMetadataUrl must be a string, got %s", m.kind)
				}
				if err := checkClientMetadataURL(m.str(text)); err != nil {
					return nil, err
				}
				if o == nil {
					o = &rawOAuth{}
				}
				o.clientMetadataURL = m.str(text)
			}
		}
	}
	return o, nil
}

// rawOAuth is an OAuth as written, its clientSecret a ${keyring:NAME}.
type rawOAuth struct {
	clientID, clientSecret, clientMetadataURL string
	scopes                                    []string
	callbackPort                              int
}

// checkClientMetadataURL: a Client ID Metadata Document's URL is the
// client's id, so it must be https with a path (the CIMD draft).
func checkClientMetadataURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" || u.Fragment != "" || u.User != nil {
		return errors.New("x-mcptray.oauth.clientMetadataUrl must be an https URL with a path (a Client ID Metadata Document), like https://example.com/mcptray.json")
	}
	return nil
}

// resolve expands the client secret's ${keyring:NAME}.
func (o *rawOAuth) resolve(r *resolver) (*OAuth, error) {
	out := &OAuth{ClientID: o.clientID, Scopes: o.scopes, ClientMetadataURL: o.clientMetadataURL, CallbackPort: o.callbackPort}
	if o.clientSecret != "" {
		v, err := r.expand(o.clientSecret, "oauth.clientSecret")
		if err != nil {
			return nil, err
		}
		out.ClientSecret = v
	}
	return out, nil
}

// addToLaunch counts the OAuth client in what the person approves: its
// id, its secret's reference, its scopes and its metadata URL, as keyed
// hashes among the launch's values (an entry with no OAuth block keeps
// the fingerprint it had).
func (o *rawOAuth) addToLaunch(l *Launch, key []byte) {
	if o == nil {
		return
	}
	l.addValue(key, "oauth", "oauth.clientId", o.clientID)
	l.addValue(key, "oauth", "oauth.clientSecret", o.clientSecret)
	l.addValue(key, "oauth", "oauth.scopes", strings.Join(o.scopes, " "))
	l.addValue(key, "oauth", "x-mcptray.oauth.clientMetadataUrl", o.clientMetadataURL)
	if o.callbackPort != 0 {
		l.addValue(key, "oauth", "oauth.callbackPort", strconv.Itoa(o.callbackPort))
	}
}
