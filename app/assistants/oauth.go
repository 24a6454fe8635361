package assistants

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// OAuth is an imported HTTP server's pre-registered OAuth client, in
// Claude Code's spelling (VS Code's entries take the same block).
type OAuth struct {
	ClientID     string
	ClientSecret string // as written: a literal moves to the keyring (a Required Secret)
	Scopes       []string
	CallbackPort int // 0: none given
}

// oauthOf reads the entry raw's "oauth" block; nil when it has none.
func oauthOf(raw json.RawMessage) (*OAuth, error) {
	var e struct {
		OAuth *struct {
			ClientID     string   `json:"clientId"`
			ClientSecret string   `json:"clientSecret"`
			Scopes       []string `json:"scopes"`
			CallbackPort int      `json:"callbackPort"`
		} `json:"oauth"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, errors.New(`"oauth" must be an object: {"clientId", "clientSecret", "scopes", "callbackPort"}`)
	}
	if e.OAuth == nil {
		return nil, nil
	}
	o := e.OAuth
	return &OAuth{ClientID: o.ClientID, ClientSecret: o.ClientSecret, Scopes: o.Scopes, CallbackPort: o.CallbackPort}, nil
}

// json is the block as mcp.json gets it, the client secret replaced by
// secretRef when it was moved.
func (o *OAuth) json(secretRef string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	sep := func() {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
	}
	if o.ClientID != "" {
		sep()
		b.WriteString(`"clientId":`)
		b.Write(jsonString(o.ClientID))
	}
	if secret := o.ClientSecret; secret != "" {
		if secretRef != "" {
			secret = secretRef
		}
		sep()
		b.WriteString(`"clientSecret":`)
		b.Write(jsonString(secret))
	}
	if len(o.Scopes) > 0 {
		sep()
		b.WriteString(`"scopes":[`)
		for i, s := range o.Scopes {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(jsonString(s))
		}
		b.WriteByte(']')
	}
	if o.CallbackPort != 0 {
		sep()
		b.WriteString(`"callbackPort":` + strconv.Itoa(o.CallbackPort))
	}
	b.WriteByte('}')
	return b.Bytes()
}
