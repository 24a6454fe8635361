package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Store is mcptray's database. It is safe for concurrent use.
type Store struct {
	pool atomic.Pointer[sql.DB] // safe for concurrent use; at most maxOpenConns connections; swapped by Reopen
	path string                 // the database file, absolute

	mu   sync.Mutex  // guards file; serialises Reopen
	file os.FileInfo // the file opened, for Replaced
}

// db is the current connection pool.
func (s *Store) db() *sql.DB { return s.pool.Load() }

// ErrBroken is matched (errors.Is) by Open's error for a file that is not
// an SQLite database or is damaged: moving it aside is the remedy. A
// database of a newer mcptray is not broken.
var ErrBroken = errors.New("the database file is broken")

// brokenError is an ErrBroken with the text a person reads.
type brokenError struct{ msg string }

func (e brokenError) Error() string        { return e.msg }
func (e brokenError) Is(target error) bool { return target == ErrBroken }

// The connection pool's bounds. Every connection costs two descriptors
// (the database and its WAL) and a page cache of up to 2 MiB, so the pool
// is bounded: without a bound, a burst of concurrent writes opened a
// connection each (issue 17: 20 000 of them, the daemon at its descriptor
// limit). In WAL mode readers run beside the one writer, and writers
// queue on SQLite's lock anyway, so a few connections lose nothing; a
// caller over the bound waits in database/sql for a free one (bounded by
// its context). No method holds a connection while it asks for another
// (rows are read to the end before the next query; a transaction uses
// only its own), so a small pool cannot deadlock: TestPoolBounded.
const (
	maxOpenConns = 8
	maxIdleConns = 4
)

// busyTimeoutMS is how long a write waits for another writer (another
// goroutine's connection, or another process) before failing with
// SQLITE_BUSY.
const busyTimeoutMS = 5000

// Open opens the database at path, creating it (mode 0600) and its parent
// folder (mode 0700) if needed, and applies pending migrations. A database
// written by a newer mcptray, or a file that is not an SQLite database, is
// refused with an error saying so.
func Open(path string) (*Store, error) {
	s, err := open(path)
	if err != nil {
		return nil, fmt.Errorf("opening store %s: %w", path, err)
	}
	return s, nil
}

func open(path string) (*Store, error) {
	ms, err := loadMigrations(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, err
	}
	// Create the file ourselves so it gets mode 0600; SQLite would use
	// 0644. SQLite gives the -wal and -shm files the database's mode.
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}

	fi, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(maxOpenConns)
	db.SetMaxIdleConns(maxIdleConns)
	if err := migrate(context.Background(), db, ms); err != nil {
		db.Close()
		return nil, explain(err)
	}
	s := &Store{path: abs, file: fi}
	s.pool.Store(db)
	return s, nil
}

// MoveAside renames the database at path (and its -wal and -shm files) to
// path.WHY-TIME, so that a fresh one can take its place; it returns the
// new name.
func MoveAside(path, why string) (string, error) {
	to := fmt.Sprintf("%s.%s-%s", path, why, time.Now().UTC().Format("20060102T150405.000Z"))
	if err := os.Rename(path, to); err != nil {
		return "", fmt.Errorf("moving %s aside: %w", path, err)
	}
	for _, ext := range []string{"-wal", "-shm"} {
		if err := os.Rename(path+ext, to+ext); err != nil && !errors.Is(err, os.ErrNotExist) {
			os.Remove(path + ext)
		}
	}
	return to, nil
}

// Replaced reports whether the file at the store's path is no longer the
// one it opened: deleted, or another file put in its place.
func (s *Store) Replaced() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	fi, err := os.Stat(s.path)
	return err != nil || !os.SameFile(fi, s.file)
}

// Reopen opens the database at the store's path again, when it was
// deleted or replaced while open: a file in its place is moved aside
// (MoveAside, "replaced"; its new name is returned) and a fresh database
// is made. Calls in flight on the old connections finish or fail; later
// ones use the new database.
func (s *Store) Reopen() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var moved string
	if fi, err := os.Stat(s.path); err == nil {
		if os.SameFile(fi, s.file) {
			return "", nil // not replaced after all
		}
		if moved, err = MoveAside(s.path, "replaced"); err != nil {
			return "", err
		}
	}
	fresh, err := open(s.path)
	if err != nil {
		return moved, fmt.Errorf("reopening %s: %w", s.path, err)
	}
	old := s.pool.Swap(fresh.db())
	s.file = fresh.file
	old.Close()
	return moved, nil
}

// dsn is the modernc.org/sqlite data source name for the database file at
// abs. Each new connection sets busy_timeout, WAL, foreign keys and
// synchronous=NORMAL (safe with WAL; a power cut may lose the last
// commits, never corrupt). Transactions begin IMMEDIATE, so a transaction
// that reads then writes never fails with SQLITE_BUSY halfway.
func dsn(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows: file:/C:/...
	}
	// The path is a URI path: escape the characters SQLite decodes.
	p = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(p)
	return fmt.Sprintf("file:%s?_busy_timeout=%d&_journal_mode=WAL&_foreign_keys=1&_synchronous=NORMAL&_txlock=immediate", p, busyTimeoutMS)
}

// explain turns SQLite's terse errors about the file itself into ones a
// person can act on.
func explain(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() & 0xff { // primary result code
	case sqlite3.SQLITE_NOTADB:
		return brokenError{"the file is not an SQLite database"}
	case sqlite3.SQLITE_CORRUPT:
		return brokenError{"the database file is damaged"}
	case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_CANTOPEN:
		return fmt.Errorf("the database file cannot be opened for writing: %w", err)
	}
	return err
}

// Close closes the database. Queries still running return errors.
func (s *Store) Close() error {
	return s.db().Close()
}
