package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Run is one launch of a downstream server process (table server_runs).
type Run struct {
	ID       int64
	Server   string
	PID      int
	PGID     int
	Instance string    // the mcptray instance id that started it (for reaping stale groups after a crash)
	Started  time.Time // UTC
	Exited   time.Time // UTC; zero while running
	ExitCode int       // -1 when killed by a signal or unknown, and while running
	Reason   string    // one line: "exited with code 3", "killed by signal", "stopped", "startup timeout"...
}

// Running reports whether no exit has been recorded for r.
func (r Run) Running() bool { return r.Exited.IsZero() }

// RunStarted records that server's process pid, in process group pgid, was
// started at at by instance, and returns the new run's id.
func (s *Store) RunStarted(ctx context.Context, server string, pid, pgid int, instance string, at time.Time) (int64, error) {
	switch {
	case server == "":
		return 0, errors.New("recording a run start: server name is empty")
	case pid <= 0:
		return 0, fmt.Errorf("recording a run start of %s: pid %d is not a process id", server, pid)
	case pgid < 0:
		return 0, fmt.Errorf("recording a run start of %s: pgid %d is not a process group id", server, pgid)
	case at.IsZero():
		return 0, fmt.Errorf("recording a run start of %s: start time is zero", server)
	}
	res, err := s.db().ExecContext(ctx,
		`INSERT INTO server_runs (server, pid, pgid, instance, started) VALUES (?, ?, ?, ?, ?)`,
		server, pid, pgid, instance, formatTime(at))
	if err != nil {
		return 0, fmt.Errorf("recording a run start of %s: %w", server, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("recording a run start of %s: %w", server, err)
	}
	return id, nil
}

// RunExited records the end of run id: when, the exit code (-1 for a
// signal or unknown) and a one-line reason (line breaks become spaces). A
// run's exit is recorded once; a second call is an error.
func (s *Store) RunExited(ctx context.Context, id int64, at time.Time, code int, reason string) error {
	if at.IsZero() {
		return fmt.Errorf("recording the exit of run %d: exit time is zero", id)
	}
	reason = oneLine(reason)
	res, err := s.db().ExecContext(ctx,
		`UPDATE server_runs SET exited = ?, exit_code = ?, reason = ? WHERE id = ? AND exited IS NULL`,
		formatTime(at), code, reason, id)
	if err != nil {
		return fmt.Errorf("recording the exit of run %d: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("recording the exit of run %d: %w", id, err)
	}
	if n == 1 {
		return nil
	}
	var exited sql.NullString
	err = s.db().QueryRowContext(ctx, `SELECT exited FROM server_runs WHERE id = ?`, id).Scan(&exited)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("recording the exit of run %d: no such run", id)
	case err != nil:
		return fmt.Errorf("recording the exit of run %d: %w", id, err)
	}
	return fmt.Errorf("recording the exit of run %d: its exit is already recorded", id)
}

// OpenRuns returns the runs with no exit recorded, oldest first. Apart from
// the current instance's own live processes, these were left by an instance
// that crashed or was killed.
func (s *Store) OpenRuns(ctx context.Context) ([]Run, error) {
	runs, err := s.queryRuns(ctx, `SELECT `+runColumns+` FROM server_runs WHERE exited IS NULL ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("listing open runs: %w", err)
	}
	return runs, nil
}

// Runs returns server's runs, newest first, at most limit of them
// (limit <= 0: all).
func (s *Store) Runs(ctx context.Context, server string, limit int) ([]Run, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	runs, err := s.queryRuns(ctx,
		`SELECT `+runColumns+` FROM server_runs WHERE server = ? ORDER BY started DESC, id DESC LIMIT ?`,
		server, limit)
	if err != nil {
		return nil, fmt.Errorf("listing runs of %s: %w", server, err)
	}
	return runs, nil
}

const runColumns = `id, server, pid, pgid, instance, started, exited, exit_code, reason`

func (s *Store) queryRuns(ctx context.Context, query string, args ...any) ([]Run, error) {
	rows, err := s.db().QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var runs []Run
	for rows.Next() {
		var (
			r       Run
			started string
			exited  sql.NullString
			code    sql.NullInt64
		)
		if err := rows.Scan(&r.ID, &r.Server, &r.PID, &r.PGID, &r.Instance, &started, &exited, &code, &r.Reason); err != nil {
			return nil, err
		}
		if r.Started, err = parseTime(started); err != nil {
			return nil, err
		}
		if exited.Valid {
			if r.Exited, err = parseTime(exited.String); err != nil {
				return nil, err
			}
		}
		r.ExitCode = -1
		if code.Valid {
			r.ExitCode = int(code.Int64)
		}
		runs = append(runs, r)
	}
	return runs, rows.Err()
}

// oneLine replaces line breaks with spaces and trims the ends.
func oneLine(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	return strings.TrimSpace(s)
}
