package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Elicitation is one audit row of the secret inbox (table elicitations):
// who asked what, and how it ended. It never holds a value.
type Elicitation struct {
	ID       int64
	Server   string
	Tool     string   // the tool call it belonged to; "" if none
	Mode     string   // form, url or input
	Message  string   // as the server (or the config's description) said it
	Fields   []string // field names, in the form's order
	Outcome  string   // accept, decline, cancel or timeout
	ClosedBy string   // who closed it: cli, ui, deadline, server, complete, …
	Created  time.Time
	Closed   time.Time
}

// Elicitation outcomes.
const (
	OutcomeAccept  = "accept"
	OutcomeDecline = "decline"
	OutcomeCancel  = "cancel"
	OutcomeTimeout = "timeout"
)

// AddElicitations records closed inbox requests in one transaction (all
// or none), in INSERTs of up to elicitationsPerInsert rows.
func (s *Store) AddElicitations(ctx context.Context, es []Elicitation) error {
	if len(es) == 0 {
		return nil
	}
	args := make([]any, 0, 9*len(es))
	for _, e := range es {
		switch {
		case e.Server == "":
			return errors.New("recording an elicitation: server name is empty")
		case e.Created.IsZero() || e.Closed.IsZero():
			return fmt.Errorf("recording an elicitation of %s: a time is zero", e.Server)
		}
		switch e.Outcome {
		case OutcomeAccept, OutcomeDecline, OutcomeCancel, OutcomeTimeout:
		default:
			return fmt.Errorf("recording an elicitation of %s: outcome %q is not accept, decline, cancel or timeout", e.Server, e.Outcome)
		}
		fields := e.Fields
		if fields == nil {
			fields = []string{}
		}
		fb, err := json.Marshal(fields)
		if err != nil {
			return fmt.Errorf("recording an elicitation of %s: %w", e.Server, err)
		}
		args = append(args, e.Server, e.Tool, e.Mode, e.Message, string(fb), e.Outcome, e.ClosedBy, formatTime(e.Created), formatTime(e.Closed))
	}
	tx, err := s.db().BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("recording elicitations: %w", err)
	}
	defer tx.Rollback()
	var full *sql.Stmt // the INSERT of elicitationsPerInsert rows, prepared once
	for len(args) > 0 {
		n := min(len(args)/9, elicitationsPerInsert)
		if n < elicitationsPerInsert { // the last few
			_, err = tx.ExecContext(ctx, insertElicitations(n), args[:9*n]...)
		} else {
			if full == nil {
				if full, err = tx.PrepareContext(ctx, insertElicitations(n)); err != nil {
					return fmt.Errorf("recording elicitations: %w", err)
				}
				defer full.Close()
			}
			_, err = full.ExecContext(ctx, args[:9*n]...)
		}
		if err != nil {
			return fmt.Errorf("recording elicitations: %w", err)
		}
		args = args[9*n:]
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("recording elicitations: %w", err)
	}
	return nil
}

// elicitationsPerInsert is how many rows one INSERT statement stores (see
// toolCallsPerInsert).
const elicitationsPerInsert = 16

// insertElicitations returns the INSERT statement for n rows.
func insertElicitations(n int) string {
	return `INSERT INTO elicitations (server, tool, mode, message, fields, outcome, closed_by, created_at, closed_at) VALUES ` +
		strings.TrimSuffix(strings.Repeat(`(?, ?, ?, ?, ?, ?, ?, ?, ?),`, n), ",")
}

// Elicitations returns the newest audit rows first, at most limit (0: all).
func (s *Store) Elicitations(ctx context.Context, limit int) ([]Elicitation, error) {
	q := `SELECT id, server, tool, mode, message, fields, outcome, closed_by, created_at, closed_at
	      FROM elicitations ORDER BY created_at DESC, id DESC`
	args := []any{}
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := s.db().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading elicitations: %w", err)
	}
	defer rows.Close()
	var out []Elicitation
	for rows.Next() {
		var e Elicitation
		var fields, created, closed string
		if err := rows.Scan(&e.ID, &e.Server, &e.Tool, &e.Mode, &e.Message, &fields, &e.Outcome, &e.ClosedBy, &created, &closed); err != nil {
			return nil, fmt.Errorf("reading elicitations: %w", err)
		}
		if err := json.Unmarshal([]byte(fields), &e.Fields); err != nil {
			return nil, fmt.Errorf("reading elicitation %d: fields: %w", e.ID, err)
		}
		if e.Created, err = parseTime(created); err != nil {
			return nil, err
		}
		if e.Closed, err = parseTime(closed); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// ErrNoInput means no value is stored for an input id.
var ErrNoInput = errors.New("no value stored for this input")

// SaveInput stores the value of a ${input:ID} that is not a password.
func (s *Store) SaveInput(ctx context.Context, id, value string, at time.Time) error {
	if id == "" {
		return errors.New("saving an input: id is empty")
	}
	_, err := s.db().ExecContext(ctx,
		`INSERT INTO inputs (id, value, updated) VALUES (?, ?, ?)
		 ON CONFLICT(id) DO UPDATE SET value = excluded.value, updated = excluded.updated`,
		id, value, formatTime(at))
	if err != nil {
		return fmt.Errorf("saving input %q: %w", id, err)
	}
	return nil
}

// Input returns the stored value of an input, or ErrNoInput.
func (s *Store) Input(ctx context.Context, id string) (string, error) {
	var v string
	err := s.db().QueryRowContext(ctx, `SELECT value FROM inputs WHERE id = ?`, id).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", ErrNoInput
	case err != nil:
		return "", fmt.Errorf("reading input %q: %w", id, err)
	}
	return v, nil
}

// DeleteInput forgets an input's value; it reports whether there was one.
func (s *Store) DeleteInput(ctx context.Context, id string) (bool, error) {
	res, err := s.db().ExecContext(ctx, `DELETE FROM inputs WHERE id = ?`, id)
	if err != nil {
		return false, fmt.Errorf("forgetting input %q: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}
