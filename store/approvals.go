package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// How a launch was approved (table launch_approvals).
const (
	ApprovedByPerson     = "person"      // the inbox, or `mcptray approve`
	ApprovedByMcptray    = "mcptray"     // an edit mcptray made itself
	ApprovedAtFirstStart = "first-start" // present when this version first started
)

// LaunchApproval is what the person allowed one entry to run.
type LaunchApproval struct {
	Server      string
	Fingerprint string // config.Launch.Fingerprint
	Command     string // the command line as shown (no secret value)
	Approved    time.Time
	How         string // ApprovedBy…
	// Values and Files are the launch's (config.Launch): keyed hashes of
	// its environment and header values, and what it ran of each file.
	Values map[string]string
	Files  map[string]string
}

// launchDetail is the JSON of launch_approvals.detail.
type launchDetail struct {
	Values map[string]string `json:"values,omitempty"`
	Files  map[string]string `json:"files,omitempty"`
}

// ApproveLaunch records that server may run the launch with fingerprint
// fp, replacing what it was allowed before.
func (s *Store) ApproveLaunch(ctx context.Context, a LaunchApproval) error {
	if a.Server == "" || a.Fingerprint == "" {
		return errors.New("recording an approval: server or fingerprint is empty")
	}
	detail, err := json.Marshal(launchDetail{Values: a.Values, Files: a.Files})
	if err != nil {
		return fmt.Errorf("recording the approval of %s: %w", a.Server, err)
	}
	_, err = s.db().ExecContext(ctx,
		`INSERT INTO launch_approvals (server, fingerprint, command, approved, how, detail) VALUES (?, ?, ?, ?, ?, ?)
		 ON CONFLICT(server) DO UPDATE SET fingerprint = excluded.fingerprint, command = excluded.command,
		 approved = excluded.approved, how = excluded.how, detail = excluded.detail`,
		a.Server, a.Fingerprint, a.Command, formatTime(a.Approved), a.How, string(detail))
	if err != nil {
		return fmt.Errorf("recording the approval of %s: %w", a.Server, err)
	}
	return nil
}

// LaunchApprovals returns every recorded approval, by server.
func (s *Store) LaunchApprovals(ctx context.Context) (map[string]LaunchApproval, error) {
	rows, err := s.db().QueryContext(ctx, `SELECT server, fingerprint, command, approved, how, detail FROM launch_approvals`)
	if err != nil {
		return nil, fmt.Errorf("reading approvals: %w", err)
	}
	defer rows.Close()
	out := map[string]LaunchApproval{}
	for rows.Next() {
		var a LaunchApproval
		var at, detail string
		if err := rows.Scan(&a.Server, &a.Fingerprint, &a.Command, &at, &a.How, &detail); err != nil {
			return nil, fmt.Errorf("reading approvals: %w", err)
		}
		var d launchDetail
		if json.Unmarshal([]byte(detail), &d) == nil {
			a.Values, a.Files = d.Values, d.Files
		}
		a.Approved, _ = parseTime(at)
		out[a.Server] = a
	}
	return out, rows.Err()
}

// Flag returns the value of a one-time fact of this data dir, and whether
// it is set.
func (s *Store) Flag(ctx context.Context, name string) (string, bool, error) {
	var v string
	err := s.db().QueryRowContext(ctx, `SELECT value FROM flags WHERE name = ?`, name).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("reading flag %s: %w", name, err)
	}
	return v, true, nil
}

// SetFlag sets a one-time fact of this data dir.
func (s *Store) SetFlag(ctx context.Context, name, value string) error {
	_, err := s.db().ExecContext(ctx, `INSERT INTO flags (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value`, name, value)
	if err != nil {
		return fmt.Errorf("setting flag %s: %w", name, err)
	}
	return nil
}
