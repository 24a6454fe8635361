package ssh

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Settings are the server's knobs, from mcp.json's "x-mcptray": {"ssh": {…}}.
type Settings struct {
	// LocalRoots are the local folders upload may read from and download
	// may write to (x-mcptray.localRoots, which gmail's attachments share;
	// the older x-mcptray.ssh.localRoots when that is absent). Default:
	// the user's home.
	LocalRoots []string
	// SecretTTL is how long a password or passphrase stays in RAM after it
	// was typed (x-mcptray.ssh.secretTTL). Default 5 minutes; 0 asks every
	// time.
	SecretTTL time.Duration
}

// DefaultSecretTTL is how long a typed secret is kept unless configured.
const DefaultSecretTTL = 5 * time.Minute

// maxSecretTTL bounds x-mcptray.ssh.secretTTL.
const maxSecretTTL = 24 * time.Hour

// DefaultSettings are the settings when mcp.json says nothing.
func DefaultSettings(home string) Settings {
	return Settings{LocalRoots: []string{home}, SecretTTL: DefaultSecretTTL}
}

// ParseSettings reads the JSON object of x-mcptray.ssh, raw:
// "localRoots" (a list of folders; a leading ~ is the home folder) and
// "secretTTL" (a duration such as "5m" or "90s", or a number of seconds),
// and the top-level x-mcptray.localRoots, roots, which wins over the
// former. Unknown keys are ignored. Empty raw and roots give
// DefaultSettings.
func ParseSettings(raw, roots []byte, home string) (Settings, error) {
	s := DefaultSettings(home)
	var in struct {
		LocalRoots *json.RawMessage `json:"localRoots"`
		SecretTTL  *json.RawMessage `json:"secretTTL"`
	}
	if !isNull(raw) {
		if err := json.Unmarshal(raw, &in); err != nil {
			return s, fmt.Errorf("x-mcptray.ssh must be an object: %v", err)
		}
	}
	switch {
	case !isNull(roots):
		list, err := parseRoots("x-mcptray.localRoots", roots, home)
		if err != nil {
			return s, err
		}
		s.LocalRoots = list
	case in.LocalRoots != nil:
		list, err := parseRoots("x-mcptray.ssh.localRoots", *in.LocalRoots, home)
		if err != nil {
			return s, err
		}
		s.LocalRoots = list
	}
	if in.SecretTTL != nil {
		d, err := parseTTL(*in.SecretTTL)
		if err != nil {
			return s, err
		}
		s.SecretTTL = d
	}
	return s, nil
}

// parseRoots reads a list of local folders, key naming where it is.
func parseRoots(key string, raw json.RawMessage, home string) ([]string, error) {
	var roots []string
	if err := json.Unmarshal(raw, &roots); err != nil {
		return nil, fmt.Errorf("%s must be a list of folders, like [\"~/work\"]", key)
	}
	var out []string
	for _, r := range roots {
		p := expandHome(r, home)
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("%s: %q must be an absolute folder or start with ~", key, r)
		}
		out = append(out, filepath.Clean(p))
	}
	return out, nil
}

func isNull(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

func parseTTL(raw json.RawMessage) (time.Duration, error) {
	var d time.Duration
	var secs float64
	var str string
	switch {
	case json.Unmarshal(raw, &secs) == nil:
		d = time.Duration(secs * float64(time.Second))
	case json.Unmarshal(raw, &str) == nil:
		var err error
		if d, err = time.ParseDuration(str); err != nil {
			return 0, fmt.Errorf("x-mcptray.ssh.secretTTL must be a duration like \"5m\" or \"90s\", got %q", str)
		}
	default:
		return 0, fmt.Errorf("x-mcptray.ssh.secretTTL must be a duration like \"5m\" or a number of seconds")
	}
	if d < 0 || d > maxSecretTTL {
		return 0, fmt.Errorf("x-mcptray.ssh.secretTTL must be between 0 and %s, got %s", maxSecretTTL, d)
	}
	return d, nil
}

// expandHome turns a leading ~ or ~/ into home.
func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}
