package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// SaveTools records server's last tools/list (a JSON array) for the
// gateway's stable mode, replacing the previous one.
func (s *Store) SaveTools(ctx context.Context, server string, tools json.RawMessage, at time.Time) error {
	if server == "" {
		return errors.New("caching tools: server name is empty")
	}
	if !json.Valid(tools) || len(tools) == 0 || tools[0] != '[' {
		return fmt.Errorf("caching tools of %s: not a JSON array", server)
	}
	_, err := s.db().ExecContext(ctx,
		`INSERT INTO tools_cache (server, tools, updated) VALUES (?, ?, ?)
		 ON CONFLICT(server) DO UPDATE SET tools = excluded.tools, updated = excluded.updated`,
		server, string(tools), formatTime(at))
	if err != nil {
		return fmt.Errorf("caching tools of %s: %w", server, err)
	}
	return nil
}

// CachedTools returns every server's last cached tools/list, by name.
func (s *Store) CachedTools(ctx context.Context) (map[string]json.RawMessage, error) {
	rows, err := s.db().QueryContext(ctx, `SELECT server, tools FROM tools_cache`)
	if err != nil {
		return nil, fmt.Errorf("reading cached tools: %w", err)
	}
	defer rows.Close()
	out := make(map[string]json.RawMessage)
	for rows.Next() {
		var name, tools string
		if err := rows.Scan(&name, &tools); err != nil {
			return nil, fmt.Errorf("reading cached tools: %w", err)
		}
		out[name] = json.RawMessage(tools)
	}
	return out, rows.Err()
}
