package googleserve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/mcptray/mcptray/app/config"
)

// settings are mcp.json's x-mcptray.google: the Google servers' settings,
// as the file writes them (the servers parse the durations).
type settings struct {
	CalendarPoll     string // "2m" when absent
	CalendarReminder string // "10m" when absent
}

// readSettings reads x-mcptray.google from the mcp.json at path (a missing
// file means the defaults). A value of the wrong type is an error naming
// the key and what it takes.
func readSettings(path string) (settings, error) {
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
	raw := cfg.Settings.Raw["google"]
	if raw == nil || bytes.Equal(raw, []byte("null")) {
		return s, nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return s, fmt.Errorf(`x-mcptray.google in %s must be an object, like {"calendarPoll": "2m"}`, path)
	}
	for key, dst := range map[string]*string{"calendarPoll": &s.CalendarPoll, "calendarReminder": &s.CalendarReminder} {
		v, ok := members[key]
		if !ok {
			continue
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return s, fmt.Errorf(`x-mcptray.google.%s in %s must be a duration in quotes, like "2m", got %s`, key, path, v)
		}
	}
	return s, nil
}
