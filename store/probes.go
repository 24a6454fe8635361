package store

import (
	"context"
	"fmt"
	"time"
)

// ProbeKeySize is the length of a stdio server's probe key: a SHA-256.
const ProbeKeySize = 32

// SaveProbe records the protocol version a stdio server starts with,
// under key (a hash of its launch, never the command line); version ""
// forgets it.
func (s *Store) SaveProbe(ctx context.Context, key [ProbeKeySize]byte, version string, at time.Time) error {
	var err error
	if version == "" {
		_, err = s.db().ExecContext(ctx, `DELETE FROM stdio_probes WHERE fingerprint = ?`, key[:])
	} else {
		_, err = s.db().ExecContext(ctx,
			`INSERT INTO stdio_probes (fingerprint, version, learned) VALUES (?, ?, ?)
			 ON CONFLICT(fingerprint) DO UPDATE SET version = excluded.version, learned = excluded.learned`,
			key[:], version, formatTime(at))
	}
	if err != nil {
		return fmt.Errorf("recording a server's first request: %w", err)
	}
	return nil
}

// Probes returns every recorded version by key. A row whose key is not
// ProbeKeySize bytes long is left out.
func (s *Store) Probes(ctx context.Context) (map[[ProbeKeySize]byte]string, error) {
	rows, err := s.db().QueryContext(ctx, `SELECT fingerprint, version FROM stdio_probes`)
	if err != nil {
		return nil, fmt.Errorf("reading the servers' first requests: %w", err)
	}
	defer rows.Close()
	out := make(map[[ProbeKeySize]byte]string)
	for rows.Next() {
		var key []byte
		var version string
		if err := rows.Scan(&key, &version); err != nil {
			return nil, fmt.Errorf("reading the servers' first requests: %w", err)
		}
		if len(key) == ProbeKeySize {
			out[[ProbeKeySize]byte(key)] = version
		}
	}
	return out, rows.Err()
}
