package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/mcp/servers/google/calendar"
)

// googleSettings are mcp.json's x-mcptray.google: the Google servers'
// settings, as the file writes them (the servers parse the durations).
type googleSettings struct {
	CalendarPoll     string // "2m" when absent
	CalendarReminder string // "10m" when absent
}

// readGoogleSettings reads x-mcptray.google from the mcp.json at path
// (a missing file means the defaults). A value of the wrong type is an
// error naming the key and what it takes.
func readGoogleSettings(path string) (googleSettings, error) {
	var s googleSettings
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

// cmdServeGcal is `mcptray serve gcal [--account EMAIL]`: the Google
// Calendar MCP server on stdio, on the accounts of the data dir
// (MCPTRAY_DATA, which the supervisor sets) and the keyring, with
// x-mcptray.google from mcp.json (MCPTRAY_CONFIG), until the client
// closes stdin. A bad setting ends it at once with the reason, which
// `mcptray status` shows.
func cmdServeGcal(ctx context.Context, args []string) error {
	f := newFlags("serve gcal")
	account := f.String("account", "", "the default `EMAIL` of the tools (default: the first account added)")
	if err := parse(f, args, 0); err != nil {
		return err
	}
	configPath, data, err := f.paths()
	if err != nil {
		return err
	}
	settings, err := readGoogleSettings(configPath)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	srv, err := calendar.NewFromConfig(calendar.Config{
		Accounts:         googleAccounts(data, logger),
		Account:          *account,
		DataDir:          data,
		CalendarPoll:     settings.CalendarPoll,
		CalendarReminder: settings.CalendarReminder,
		Logger:           logger,
	})
	if err != nil {
		return err
	}
	return srv.ServeStdio(ctx)
}
