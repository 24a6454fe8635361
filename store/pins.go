package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ToolPin is a tool's pinned version (table tool_pins).
type ToolPin struct {
	Tool    string
	Hash    string          // of its name, description, input schema and annotations
	Pinned  json.RawMessage // that version: {"name", "description", "inputSchema", "annotations"}
	Updated time.Time
}

// PinTools records pins of server's tools, replacing earlier ones of the
// same tools, in one transaction.
func (s *Store) PinTools(ctx context.Context, server string, pins []ToolPin) error {
	if server == "" {
		return errors.New("pinning tools: server name is empty")
	}
	tx, err := s.db().BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("pinning tools of %s: %w", server, err)
	}
	defer tx.Rollback()
	for _, p := range pins {
		if p.Tool == "" || p.Hash == "" || !json.Valid(p.Pinned) {
			return fmt.Errorf("pinning tools of %s: a pin lacks its tool, hash or JSON", server)
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO tool_pins (server, tool, hash, pinned, updated) VALUES (?, ?, ?, ?, ?)
			 ON CONFLICT(server, tool) DO UPDATE SET hash = excluded.hash, pinned = excluded.pinned, updated = excluded.updated`,
			server, p.Tool, p.Hash, string(p.Pinned), formatTime(p.Updated)); err != nil {
			return fmt.Errorf("pinning %s of %s: %w", p.Tool, server, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("pinning tools of %s: %w", server, err)
	}
	return nil
}

// ToolPins returns the pins of server's tools, by tool name.
func (s *Store) ToolPins(ctx context.Context, server string) (map[string]ToolPin, error) {
	rows, err := s.db().QueryContext(ctx, `SELECT tool, hash, pinned, updated FROM tool_pins WHERE server = ?`, server)
	if err != nil {
		return nil, fmt.Errorf("reading the pins of %s: %w", server, err)
	}
	defer rows.Close()
	out := map[string]ToolPin{}
	for rows.Next() {
		var p ToolPin
		var pinned, at string
		if err := rows.Scan(&p.Tool, &p.Hash, &pinned, &at); err != nil {
			return nil, fmt.Errorf("reading the pins of %s: %w", server, err)
		}
		p.Pinned = json.RawMessage(pinned)
		p.Updated, _ = parseTime(at)
		out[p.Tool] = p
	}
	return out, rows.Err()
}
