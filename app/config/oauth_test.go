package config

import (
	"slices"
	"strings"
	"testing"
)

// An HTTP entry's "oauth" block (Claude Code's spelling) and its
// x-mcptray.oauth.clientMetadataUrl are read, the client secret from the
// keyring; the secret never shows in an error, and a literal one is
// refused with the command that stores it.
func TestOAuthBlock(t *testing.T) {
	t.Parallel()
	s := parseEntry(t, `{"url": "https://mcp.example/mcp",
	  "oauth": {"clientId": "cid", "clientSecret": "${keyring:remote-token}", "scopes": ["read", "write"], "callbackPort": 8080, "unknownKey": 1},
	  "x-mcptray": {"oauth": {"clientMetadataUrl": "https://me.example/client.json"}}}`, testEnv())
	if s.Err != nil {
		t.Fatal(s.Err)
	}
	want := OAuth{ClientID: "cid", ClientSecret: secretToken, Scopes: []string{"read", "write"}, ClientMetadataURL: "https://me.example/client.json", CallbackPort: 8080}
	if s.OAuth == nil || s.OAuth.ClientID != want.ClientID || s.OAuth.ClientSecret != want.ClientSecret || s.OAuth.CallbackPort != want.CallbackPort ||
		!slices.Equal(s.OAuth.Scopes, want.Scopes) || s.OAuth.ClientMetadataURL != want.ClientMetadataURL {
		t.Fatalf("OAuth = %+v, want %+v", s.OAuth, want)
	}
	if s := parseEntry(t, `{"url": "https://mcp.example/mcp"}`, testEnv()); s.Err != nil || s.OAuth != nil {
		t.Errorf("no oauth block: OAuth %+v, err %v", s.OAuth, s.Err)
	}
	if s := parseEntry(t, `{"url": "https://mcp.example/mcp", "x-mcptray": {"oauth": {"clientMetadataUrl": "https://me.example/c.json"}}}`, testEnv()); s.Err != nil || s.OAuth == nil || s.OAuth.ClientID != "" {
		t.Errorf("only a metadata URL: OAuth %+v, err %v", s.OAuth, s.Err)
	}

	for _, tc := range []struct{ entry, want string }{
		{`{"command": "x", "oauth": {"clientId": "a"}}`, `x: "oauth" goes with a remote server ("url"), not a stdio one`},
		{`{"command": "x", "x-mcptray": {"oauth": {"clientMetadataUrl": "https://me.example/c.json"}}}`, `x: "oauth" goes with a remote server ("url"), not a stdio one`},
		{`{"url": "https://a/mcp", "oauth": "cid"}`, `x: "oauth" must be an object, got string`},
		{`{"url": "https://a/mcp", "oauth": {"clientId": 7}}`, `x: oauth.clientId must be a string, got number`},
		{`{"url": "https://a/mcp", "oauth": {"scopes": "read write"}}`, `x: oauth.scopes must be an array of strings, got string`},
		{`{"url": "https://a/mcp", "oauth": {"scopes": ["read write"]}}`, `x: oauth.scopes[0] must be one scope: no spaces or quotes`},
		{`{"url": "https://a/mcp", "oauth": {"scopes": [1]}}`, `x: oauth.scopes[0] must be a string, got number`},
		{`{"url": "https://a/mcp", "oauth": {"clientId": "a", "clientSecret": "` + secretVar + `"}}`, `x: oauth.clientSecret must be a ${keyring:NAME} reference, not the secret itself: store it with "mcptray secret set NAME" and write "${keyring:NAME}"`},
		{`{"url": "https://a/mcp", "oauth": {"clientId": "a", "clientSecret": "x${keyring:remote-token}"}}`, `x: oauth.clientSecret must be a ${keyring:NAME} reference`},
		{`{"url": "https://a/mcp", "oauth": {"clientSecret": "${keyring:remote-token}"}}`, `x: oauth.clientSecret needs oauth.clientId`},
		{`{"url": "https://a/mcp", "oauth": {"clientId": "a", "clientSecret": "${keyring:missing}"}}`, `x: keyring entry "missing" not found`},
		{`{"url": "https://a/mcp", "oauth": {"callbackPort": "80"}}`, `x: oauth.callbackPort must be a port number, 1 to 65535`},
		{`{"url": "https://a/mcp", "oauth": {"callbackPort": 70000}}`, `x: oauth.callbackPort must be a port number, 1 to 65535`},
		{`{"url": "https://a/mcp", "oauth": {"callbackPort": 1.5}}`, `x: oauth.callbackPort must be a port number, 1 to 65535`},
		{`{"url": "https://a/mcp", "x-mcptray": {"oauth": true}}`, `x: x-mcptray.oauth must be an object, got bool`},
		{`{"url": "https://a/mcp", "x-mcptray": {"oauth": {"clientMetadataUrl": 1}}}`, `x: x-mcptray.oauth.clientMetadataUrl must be a string, got number`},
		{`{"url": "https://a/mcp", "x-mcptray": {"oauth": {"clientMetadataUrl": "http://me.example/c.json"}}}`, `x: x-mcptray.oauth.clientMetadataUrl must be an https URL with a path`},
		{`{"url": "https://a/mcp", "x-mcptray": {"oauth": {"clientMetadataUrl": "https://me.example/"}}}`, `x: x-mcptray.oauth.clientMetadataUrl must be an https URL with a path`},
		{`{"url": "https://a/mcp", "x-mcptray": {"oauth": {"clientMetadataUrl": "https://me.example"}}}`, `x: x-mcptray.oauth.clientMetadataUrl must be an https URL with a path`},
	} {
		s := parseEntry(t, tc.entry, testEnv())
		if s.Err == nil || !strings.HasPrefix(s.Err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.entry, s.Err, tc.want)
			continue
		}
		if strings.Contains(s.Err.Error(), secretVar) || strings.Contains(s.Err.Error(), secretToken) {
			t.Errorf("%s: the error shows a secret: %v", tc.entry, s.Err)
		}
		if s.OAuth != nil {
			t.Errorf("%s: a refused entry keeps its OAuth", tc.entry)
		}
	}
}

// The OAuth client is part of what the person approves (DESIGN.md §14) and
// of the runtime fingerprint (a change restarts the server); a rotated
// secret behind the ${keyring:…} is neither; an entry without the block
// keeps the launch fingerprint it had.
func TestOAuthInLaunch(t *testing.T) {
	t.Parallel()
	secret := "cs-1"
	env := testEnv()
	env.LaunchKey = []byte("k1")
	env.Keyring = func(string) (string, error) { return secret, nil }
	parse := func(entry string) Server {
		t.Helper()
		cfg, err := Parse([]byte(`{"mcpServers": {"a": `+entry+`}}`), env)
		if err != nil || cfg.Servers[0].Err != nil {
			t.Fatal(err, cfg.Servers[0].Err)
		}
		return cfg.Servers[0]
	}
	plain := parse(`{"url": "https://a.example/mcp"}`)
	base := `{"url": "https://a.example/mcp", "oauth": {"clientId": "cid", "clientSecret": "${keyring:cs}", "scopes": ["read"]}, "x-mcptray": {"oauth": {"clientMetadataUrl": "https://me.example/c.json"}}}`
	b := parse(base)
	if b.Launch.Fingerprint() == plain.Launch.Fingerprint() || b.Launch.FingerprintV1() != plain.Launch.FingerprintV1() {
		t.Error("the oauth block is not in the launch's values")
	}
	if len(plain.Launch.Values) != 0 {
		t.Errorf("an entry without oauth has values %v", plain.Launch.Values)
	}
	for _, edit := range [][2]string{
		{`"cid"`, `"other"`},
		{`${keyring:cs}`, `${keyring:cs2}`},
		{`["read"]`, `["read", "admin"]`},
		{`c.json`, `d.json`},
	} {
		e := parse(strings.Replace(base, edit[0], edit[1], 1))
		if e.Launch.Fingerprint() == b.Launch.Fingerprint() {
			t.Errorf("%s → %s keeps the launch fingerprint", edit[0], edit[1])
		}
		if e.Fingerprint() == b.Fingerprint() && edit[0] != `${keyring:cs}` { // the same secret behind another name
			t.Errorf("%s → %s keeps the runtime fingerprint", edit[0], edit[1])
		}
		changes := e.Launch.ValueChanges(b.Launch.Values)
		if len(changes) != 1 || !strings.Contains(changes[0].Name, "oauth.") {
			t.Errorf("%s → %s: changes %v", edit[0], edit[1], changes)
		}
	}
	secret = "cs-2"
	r := parse(base)
	if r.Launch.Fingerprint() != b.Launch.Fingerprint() {
		t.Error("a rotated client secret changed the launch")
	}
	if r.Fingerprint() == b.Fingerprint() {
		t.Error("a rotated client secret does not restart the server")
	}
	for k, v := range b.Launch.Values {
		if strings.Contains(v, "cs-1") || strings.Contains(v, "cid") {
			t.Errorf("%s keeps a value", k)
		}
	}
}
