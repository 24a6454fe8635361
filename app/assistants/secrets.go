package assistants

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
)

// Secret is a literal value in an imported server's env or headers that
// looks like a secret (see IsSecretKey). Its value is never shown: String
// and GoString name it by server, field and key.
type Secret struct {
	Server string // the server's name in mcp.json
	Field  string // "env" or "headers"
	Key    string // "GITHUB_TOKEN", "Authorization"
	// Name is the keyring NAME: the value becomes ${keyring:Name} in
	// mcp.json when moved.
	Name string
	// Move is the caller's choice: true moves the value into the keyring
	// (entry keyring/Name) and writes the reference; false copies the
	// value into mcp.json as it is. False until the person says yes.
	Move bool
	// Required: the value must go to the keyring (an OAuth client secret,
	// which mcp.json takes only as ${keyring:…}): Move stays true
	// whatever the caller chooses for the others.
	Required bool
	// Scheme is an Authorization scheme ("Bearer ") kept in the file
	// before the reference; "" for most.
	Scheme string
	value  string
}

// Value is the secret's value, for the function that stores it.
func (s *Secret) Value() string { return s.value }

// Reference is what mcp.json holds when the value is moved:
// [Scheme]${keyring:Name}.
func (s *Secret) Reference() string { return s.Scheme + "${keyring:" + s.Name + "}" }

func (s *Secret) String() string {
	return fmt.Sprintf("%s %s %s", s.Server, s.Field, s.Key)
}

func (s *Secret) GoString() string {
	return fmt.Sprintf("&assistants.Secret{Server: %q, Field: %q, Key: %q, Name: %q, Move: %t}", s.Server, s.Field, s.Key, s.Name, s.Move)
}

// secretWords are the words of a key that say its value is a secret.
var secretWords = map[string]bool{
	"token": true, "tokens": true, "key": true, "keys": true, "apikey": true,
	"secret": true, "secrets": true, "password": true, "passwords": true,
	"passwd": true, "pwd": true, "passphrase": true, "pat": true, "auth": true,
	"authorization": true, "credential": true, "credentials": true,
	"bearer": true, "cookie": true,
	"accesstoken": true, "authtoken": true, "apitoken": true, "refreshtoken": true,
	"clientsecret": true, "privatekey": true, "secretkey": true, "accesskey": true,
}

// plainWords are the words of a key that say its value, although about a
// secret, is not one: where it is (KEY_FILE, TOKEN_URL), which one it is
// (AWS_ACCESS_KEY_ID), or how it is used (AUTH_TYPE).
var plainWords = map[string]bool{
	"file": true, "path": true, "dir": true, "url": true, "uri": true,
	"endpoint": true, "id": true, "name": true, "type": true, "user": true,
	"username": true, "host": true, "port": true, "region": true, "mode": true,
	"scheme": true, "method": true, "version": true, "expiry": true,
	"expires": true, "ttl": true, "timeout": true, "env": true, "header": true,
	"provider": true, "scope": true, "scopes": true, "length": true,
}

// IsSecretKey reports whether the value of an env variable or a header
// called key is taken for a secret: one of its words (split at
// punctuation and at lower-to-upper case changes) is a secret word
// (token, key, secret, password, passwd, pat, auth, credential, bearer,
// and a few compounds like apikey), and none says it is a place, an id or
// a kind (file, path, url, id, name, type, …). Whole words only: KEYBOARD
// and MONKEY are not secrets, GITHUB_PAT and apiKey are.
func IsSecretKey(key string) bool {
	secret := false
	for _, w := range keyWords(key) {
		if plainWords[w] {
			return false
		}
		if secretWords[w] {
			secret = true
		}
	}
	return secret
}

// keyWords splits a key into lowercase words: X-API-Key → x, api, key;
// apiKey → api, key; APIKey → api, key.
func keyWords(key string) []string {
	var words []string
	rs := []rune(key)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(string(rs[start:end])))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		lowerToUpper := unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev))
		acronymEnd := unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
		if lowerToUpper || acronymEnd {
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return words
}

// literalSecret reports whether value, under a secret-looking key, is a
// literal worth moving: not empty, not already a variable (${…}), not a
// boolean, not a URL without credentials in it.
func literalSecret(value string) bool {
	v := strings.TrimSpace(value)
	switch {
	case v == "", strings.Contains(v, "${"), v == "true", v == "false", v == "null":
		return false
	}
	if u, err := url.Parse(v); err == nil && u.Scheme != "" && u.Host != "" && u.User == nil {
		return false
	}
	return true
}

// authScheme splits "Bearer abc" into "Bearer " and "abc"; a value
// without a scheme has "".
func authScheme(value string) (scheme, rest string) {
	for _, s := range []string{"Bearer", "Basic", "Token", "Bot"} {
		if len(value) > len(s)+1 && strings.EqualFold(value[:len(s)], s) && value[len(s)] == ' ' {
			return value[:len(s)+1], value[len(s)+1:]
		}
	}
	return "", value
}

// keyringName is the keyring NAME for a secret of a server: server-key,
// with what a NAME may not hold (config.CheckSecretName: letters, digits and
// . _ - / @ + :) turned into "-".
func keyringName(server, key string) string {
	name := strings.Map(func(r rune) rune {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._-/@+:", r)) {
			return r
		}
		return '-'
	}, server+"-"+key)
	if len(name) > maxSecretName {
		name = name[:maxSecretName]
	}
	return name
}
