package googleserve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/mcptray/mcptray/app/config"
)

// settings are the Google servers' settings from mcp.json: x-mcptray.google
// as the file writes it (the servers parse the durations and modes), and
// the local folders gmail may attach files from.
type settings struct {
	CalendarPoll     string // "2m" when absent
	CalendarReminder string // "10m" when absent
	GmailPoll        string // "60s" when absent
	GmailSend        string // "confirm" when absent
	// DownloadDir is x-mcptray.google.downloadDir made absolute ("" when
	// absent: ~/Downloads/mcptray).
	DownloadDir string
	// LocalRoots is x-mcptray.localRoots, else the older
	// x-mcptray.ssh.localRoots, made absolute; nil when neither is set
	// (the home folder).
	LocalRoots []string
}

// readSettings reads the settings from the mcp.json at path (a missing
// file means the defaults); home expands a leading ~. A value of the wrong
// type is an error naming the key and what it takes.
func readSettings(path, home string) (settings, error) {
	var s settings
	data, err := config.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("reading %s: %w", path, err)
	}
	cfg, err := config.Parse(data, config.Env{})
	if err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	if s.LocalRoots, err = localRoots(cfg.Settings.Raw, path, home); err != nil {
		return s, err
	}
	raw := cfg.Settings.Raw["google"]
	if isNull(raw) {
		return s, nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return s, fmt.Errorf(`x-mcptray.google in %s must be an object, like {"calendarPoll": "2m"}`, path)
	}
	for _, k := range []struct {
		key, what string
		dst       *string
	}{
		{"calendarPoll", `a duration in quotes, like "2m"`, &s.CalendarPoll},
		{"calendarReminder", `a duration in quotes, like "10m"`, &s.CalendarReminder},
		{"gmailPoll", `a duration in quotes, like "60s"`, &s.GmailPoll},
		{"gmailSend", `"confirm", "allow" or "drafts-only"`, &s.GmailSend},
		{"downloadDir", `a folder in quotes, like "~/Downloads/mcptray"`, &s.DownloadDir},
	} {
		v, ok := members[k.key]
		if !ok {
			continue
		}
		if err := json.Unmarshal(v, k.dst); err != nil {
			return s, fmt.Errorf(`x-mcptray.google.%s in %s must be %s, got %s`, k.key, path, k.what, v)
		}
	}
	if s.DownloadDir != "" {
		if s.DownloadDir, err = folder("x-mcptray.google.downloadDir", path, s.DownloadDir, home); err != nil {
			return s, err
		}
	}
	return s, nil
}

// localRoots reads x-mcptray.localRoots, which the SSH server reads too;
// the older x-mcptray.ssh.localRoots counts when it is absent.
func localRoots(x map[string]json.RawMessage, path, home string) ([]string, error) {
	key, raw := "x-mcptray.localRoots", x["localRoots"]
	if isNull(raw) {
		var ssh struct {
			LocalRoots json.RawMessage `json:"localRoots"`
		}
		if json.Unmarshal(x["ssh"], &ssh) != nil || isNull(ssh.LocalRoots) {
			return nil, nil
		}
		key, raw = "x-mcptray.ssh.localRoots", ssh.LocalRoots
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf(`%s in %s must be a list of folders, like ["~/work"], got %s`, key, path, raw)
	}
	roots := []string{}
	for _, r := range list {
		p, err := folder(key, path, r, home)
		if err != nil {
			return nil, err
		}
		roots = append(roots, p)
	}
	return roots, nil
}

// folder makes a configured folder absolute: a leading ~ is home.
func folder(key, path, v, home string) (string, error) {
	p := v
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%s in %s: %q must be an absolute folder or start with ~", key, path, v)
	}
	return filepath.Clean(p), nil
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}
