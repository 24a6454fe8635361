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
	// may write to (x-mcptray.ssh.localRoots). Default: the user's home.
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

// ParseSettings reads the JSON object of x-mcptray.ssh: "localRoots" (a
// list of folders; a leading ~ is the home folder) and "secretTTL" (a
// duration such as "5m" or "90s", or a number of seconds). Unknown keys are
// ignored. An empty raw gives DefaultSettings.
func ParseSettings(raw []byte, home string) (Settings, error) {
	s := DefaultSettings(home)
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return s, nil
	}
	var in struct {
		LocalRoots *json.RawMessage `json:"localRoots"`
		SecretTTL  *json.RawMessage `json:"secretTTL"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return s, fmt.Errorf("x-mcptray.ssh must be an object: %v", err)
	}
	if in.LocalRoots != nil {
		var roots []string
		if err := json.Unmarshal(*in.LocalRoots, &roots); err != nil {
			return s, fmt.Errorf("x-mcptray.ssh.localRoots must be a list of folders, like [\"~/work\"]")
		}
		s.LocalRoots = nil
		for _, r := range roots {
			p := expandHome(r, home)
			if !filepath.IsAbs(p) {
				return s, fmt.Errorf("x-mcptray.ssh.localRoots: %q must be an absolute folder or start with ~", r)
			}
			s.LocalRoots = append(s.LocalRoots, filepath.Clean(p))
		}
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
