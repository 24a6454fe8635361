package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// migrationFiles holds the schema, one numbered file per step:
// migrations/0001_name.sql, 0002_name.sql, ... A step is never edited once
// released; a change to the schema is a new file with the next number.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered schema step.
type migration struct {
	version int
	name    string // file name, for error messages
	sql     string
}

// loadMigrations reads the .sql files in dir of fsys and returns them in
// order. Numbers must start at 1 and have no gaps or duplicates.
func loadMigrations(fsys fs.FS, dir string) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("reading migrations: %w", err)
	}
	var ms []migration
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must be NNNN_description.sql", name)
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("reading migration %s: %w", name, err)
		}
		ms = append(ms, migration{version: v, name: name, sql: string(b)})
	}
	// fs.ReadDir returns names sorted; zero-padded numbers sort numerically,
	// and the check below catches any that don't.
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: expected number %d (numbers start at 1, with no gaps or duplicates)", m.name, i+1)
		}
	}
	return ms, nil
}

// migrate brings db up to the last of ms. Each step runs in its own
// immediate transaction that re-reads PRAGMA user_version first, so two
// processes opening the same new database apply each step once. A database
// whose user_version is above the last known step was written by a newer
// mcptray, and is refused.
func migrate(ctx context.Context, db *sql.DB, ms []migration) error {
	for {
		done, err := migrateStep(ctx, db, ms)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
}

// migrateStep applies the next pending migration, if any, and reports
// whether the schema was already current.
func migrateStep(ctx context.Context, db *sql.DB, ms []migration) (done bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()

	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return false, err
	}
	switch {
	case v > len(ms):
		return false, fmt.Errorf("database schema version %d is newer than this mcptray knows (%d): upgrade mcptray, or point --data at another folder", v, len(ms))
	case v == len(ms):
		return true, nil
	case v < 0:
		return false, fmt.Errorf("database schema version %d is not valid", v)
	}
	m := ms[v]
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return false, fmt.Errorf("applying migration %s: %w", m.name, err)
	}
	// PRAGMA takes no bound parameters; m.version is an int.
	if _, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(m.version)); err != nil {
		return false, fmt.Errorf("recording migration %s: %w", m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("committing migration %s: %w", m.name, err)
	}
	return false, nil
}
