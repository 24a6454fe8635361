package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Event is one notification a server pushed outside the protocol (table
// events).
type Event struct {
	ID       int64 // set by AddEvents; ids grow in the order events were received and are never reused
	Server   string
	Method   string          // e.g. "event/new_email"
	Params   json.RawMessage // a JSON object, as the server sent it
	Received time.Time       // UTC
	Acked    time.Time       // UTC; zero while unacknowledged
}

// EventFilter selects events for Events. The zero filter is every
// unacknowledged event, oldest first.
type EventFilter struct {
	Server  string // only this server's; "" every server
	SinceID int64  // only events with a greater id
	All     bool   // acknowledged events too
	Limit   int    // at most this many; <= 0 no limit
	// Newest, with Limit, keeps the newest Limit events instead of the
	// oldest. Events are returned oldest first either way.
	Newest bool
}

// AddEvents stores evs in one transaction, in order, and sets their IDs.
// Either all are stored or none. Each needs a server, a method, a Params
// object and a Received time.
func (s *Store) AddEvents(ctx context.Context, evs []Event) error {
	if len(evs) == 0 {
		return nil
	}
	for i := range evs {
		if err := checkEvent(&evs[i]); err != nil {
			return fmt.Errorf("storing events: %w", err)
		}
	}
	tx, err := s.db().BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("storing events: %w", err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO events (server, method, params, received_at) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("storing events: %w", err)
	}
	defer stmt.Close()
	ids := make([]int64, len(evs))
	for i := range evs {
		e := &evs[i]
		res, err := stmt.ExecContext(ctx, e.Server, e.Method, string(e.Params), formatTime(e.Received))
		if err != nil {
			return fmt.Errorf("storing events: %w", err)
		}
		if ids[i], err = res.LastInsertId(); err != nil {
			return fmt.Errorf("storing events: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("storing events: %w", err)
	}
	for i := range evs {
		evs[i].ID = ids[i]
	}
	return nil
}

func checkEvent(e *Event) error {
	switch {
	case e.Server == "":
		return errors.New("an event has no server name")
	case e.Method == "":
		return fmt.Errorf("an event of %s has no method", e.Server)
	case e.Received.IsZero():
		return fmt.Errorf("event %s of %s has no receive time", e.Method, e.Server)
	}
	p := strings.TrimSpace(string(e.Params))
	if !strings.HasPrefix(p, "{") || !strings.HasSuffix(p, "}") {
		return fmt.Errorf("event %s of %s: params must be a JSON object", e.Method, e.Server)
	}
	return nil
}

// where is the WHERE clause (or "") and its arguments for the events f
// selects, Limit aside.
func (f EventFilter) where() (string, []any) {
	var where []string
	var args []any
	if !f.All {
		where = append(where, "acked_at IS NULL")
	}
	if f.Server != "" {
		where = append(where, "server = ?")
		args = append(args, f.Server)
	}
	if f.SinceID > 0 {
		where = append(where, "id > ?")
		args = append(args, f.SinceID)
	}
	if len(where) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(where, " AND "), args
}

// CountEvents counts the events f selects, its Limit aside.
func (s *Store) CountEvents(ctx context.Context, f EventFilter) (int, error) {
	where, args := f.where()
	var n int
	if err := s.db().QueryRowContext(ctx, `SELECT count(*) FROM events`+where, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("counting events: %w", err)
	}
	return n, nil
}

// Events returns the events f selects, oldest first.
func (s *Store) Events(ctx context.Context, f EventFilter) ([]Event, error) {
	where, args := f.where()
	q := `SELECT id, server, method, params, received_at, acked_at FROM events` + where
	order := "ASC"
	if f.Newest && f.Limit > 0 {
		order = "DESC"
	}
	q += " ORDER BY id " + order
	if f.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, f.Limit)
	}
	rows, err := s.db().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading events: %w", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var (
			e                Event
			params, received string
			acked            sql.NullString
		)
		if err := rows.Scan(&e.ID, &e.Server, &e.Method, &params, &received, &acked); err != nil {
			return nil, fmt.Errorf("reading events: %w", err)
		}
		e.Params = json.RawMessage(params)
		if e.Received, err = parseTime(received); err != nil {
			return nil, fmt.Errorf("reading events: %w", err)
		}
		if acked.Valid {
			if e.Acked, err = parseTime(acked.String); err != nil {
				return nil, fmt.Errorf("reading events: %w", err)
			}
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading events: %w", err)
	}
	if order == "DESC" {
		slices.Reverse(out)
	}
	return out, nil
}

// UnackedEvents counts the events not yet acknowledged.
func (s *Store) UnackedEvents(ctx context.Context) (int, error) {
	var n int
	if err := s.db().QueryRowContext(ctx, `SELECT count(*) FROM events WHERE acked_at IS NULL`).Scan(&n); err != nil {
		return 0, fmt.Errorf("counting events: %w", err)
	}
	return n, nil
}

// AckEvents marks the events with these ids acknowledged at at and
// returns how many were not already. An id that names no event fails the
// whole call, changing nothing.
func (s *Store) AckEvents(ctx context.Context, ids []int64, at time.Time) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	if at.IsZero() {
		return 0, errors.New("acknowledging events: time is zero")
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return 0, fmt.Errorf("acknowledging events: %w", err)
	}
	tx, err := s.db().BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("acknowledging events: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT id FROM events WHERE id IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return 0, fmt.Errorf("acknowledging events: %w", err)
	}
	found := make(map[int64]bool, len(ids))
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, fmt.Errorf("acknowledging events: %w", err)
		}
		found[id] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("acknowledging events: %w", err)
	}
	var missing []string
	for _, id := range ids {
		if !found[id] {
			missing = append(missing, strconv.FormatInt(id, 10))
			found[id] = true // name it once
		}
	}
	switch len(missing) {
	case 0:
	case 1:
		return 0, fmt.Errorf("%w: no event has id %s", ErrNoEvent, missing[0])
	default:
		return 0, fmt.Errorf("%w: no events have ids %s", ErrNoEvent, strings.Join(missing, ", "))
	}
	res, err := tx.ExecContext(ctx, `UPDATE events SET acked_at = ? WHERE acked_at IS NULL AND id IN (SELECT value FROM json_each(?))`,
		formatTime(at), string(list))
	if err != nil {
		return 0, fmt.Errorf("acknowledging events: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("acknowledging events: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("acknowledging events: %w", err)
	}
	return int(n), nil
}

// ErrNoEvent is wrapped by AckEvents when an id names no event.
var ErrNoEvent = errors.New("no such event")

// AckAllEvents marks every unacknowledged event (of server, or of every
// server when server is "") acknowledged at at, and returns how many.
func (s *Store) AckAllEvents(ctx context.Context, server string, at time.Time) (int, error) {
	if at.IsZero() {
		return 0, errors.New("acknowledging events: time is zero")
	}
	q, args := `UPDATE events SET acked_at = ? WHERE acked_at IS NULL`, []any{formatTime(at)}
	if server != "" {
		q += ` AND server = ?`
		args = append(args, server)
	}
	res, err := s.db().ExecContext(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("acknowledging events: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("acknowledging events: %w", err)
	}
	return int(n), nil
}

// DeleteAckedEvents deletes acknowledged events received before before
// and returns how many. Unacknowledged events are kept, however old.
func (s *Store) DeleteAckedEvents(ctx context.Context, before time.Time) (int, error) {
	res, err := s.db().ExecContext(ctx, `DELETE FROM events WHERE acked_at IS NOT NULL AND received_at < ?`, formatTime(before))
	if err != nil {
		return 0, fmt.Errorf("deleting old events: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("deleting old events: %w", err)
	}
	return int(n), nil
}
