package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func openTemp(t testing.TB) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data", "mcptray.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func userVersion(t *testing.T, db *sql.DB) int {
	t.Helper()
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func knownVersion(t *testing.T) int {
	t.Helper()
	ms, err := loadMigrations(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	return len(ms)
}

func TestOpenCreatesPrivateFileAndFolder(t *testing.T) {
	s, path := openTemp(t)
	if _, err := s.RunStarted(context.Background(), "a", 1, 1, "i", now()); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{
		filepath.Dir(path): 0o700,
		path:               0o600,
		path + "-wal":      0o600,
		path + "-shm":      0o600,
	} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %v, want %v", filepath.Base(p), got, want)
		}
	}
}

func TestOpenSetsPragmas(t *testing.T) {
	s, _ := openTemp(t)
	for pragma, want := range map[string]string{
		"journal_mode": "wal",
		"foreign_keys": "1",
		"busy_timeout": "5000",
		"synchronous":  "1", // NORMAL
	} {
		var got string
		if err := s.db().QueryRow("PRAGMA " + pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
	}
}

func TestReopenKeepsDataAndSchema(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	id, err := s.RunStarted(ctx, "notes", 10, 10, "i1", now())
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	for range 2 {
		s2, err := Open(path)
		if err != nil {
			t.Fatalf("reopening: %v", err)
		}
		if got, want := userVersion(t, s2.db()), knownVersion(t); got != want {
			t.Errorf("user_version = %d, want %d", got, want)
		}
		runs, err := s2.Runs(ctx, "notes", 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 1 || runs[0].ID != id {
			t.Errorf("after reopen: runs = %+v, want the one run %d", runs, id)
		}
		s2.Close()
	}
}

func TestOpenPathWithURICharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a?b#c%20d")
	path := filepath.Join(dir, "mcptray.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database not at the given path: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files in %s: %v, want only mcptray.db", dir, names)
	}
}

func TestOpenNewerDatabase(t *testing.T) {
	s, path := openTemp(t)
	if _, err := s.db().Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	s.Close()

	_, err := Open(path)
	if err == nil {
		t.Fatal("Open succeeded on a database from a newer mcptray")
	}
	want := fmt.Sprintf("opening store %s: database schema version 99 is newer than this mcptray knows (%d): upgrade mcptray, or point --data at another folder", path, knownVersion(t))
	if err.Error() != want {
		t.Errorf("error:\n got: %s\nwant: %s", err, want)
	}
}

func TestOpenNotADatabase(t *testing.T) {
	for name, content := range map[string]string{
		"text":  strings.Repeat("this is a text file, not a database\n", 200),
		"short": "{}\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mcptray.db")
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Open(path)
			if err == nil {
				t.Fatal("Open succeeded on a text file")
			}
			want := "opening store " + path + ": the file is not an SQLite database"
			if err.Error() != want {
				t.Errorf("error:\n got: %s\nwant: %s", err, want)
			}
			b, _ := os.ReadFile(path)
			if string(b) != content {
				t.Error("Open changed the file")
			}
		})
	}
}

func TestOpenFolderInTheWay(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(file, "mcptray.db")
	_, err := Open(path)
	if err == nil {
		t.Fatal("Open succeeded under a regular file")
	}
	want := "opening store " + path + ": mkdir " + file + ": not a directory"
	if err.Error() != want {
		t.Errorf("error:\n got: %s\nwant: %s", err, want)
	}
}

func TestLoadMigrationsRejectsBadSets(t *testing.T) {
	sql := &fstest.MapFile{Data: []byte("CREATE TABLE t (x);")}
	for _, tc := range []struct {
		files fstest.MapFS
		want  string
	}{
		{fstest.MapFS{"m/0001_a.sql": sql, "m/0003_c.sql": sql},
			"migration 0003_c.sql: expected number 2 (numbers start at 1, with no gaps or duplicates)"},
		{fstest.MapFS{"m/0001_a.sql": sql, "m/0001_b.sql": sql},
			"migration 0001_b.sql: expected number 2 (numbers start at 1, with no gaps or duplicates)"},
		{fstest.MapFS{"m/0002_b.sql": sql},
			"migration 0002_b.sql: expected number 1 (numbers start at 1, with no gaps or duplicates)"},
		{fstest.MapFS{"m/init.sql": sql},
			"migration init.sql: name must be NNNN_description.sql"},
		{fstest.MapFS{"m/0000_zero.sql": sql},
			"migration 0000_zero.sql: name must be NNNN_description.sql"},
	} {
		_, err := loadMigrations(tc.files, "m")
		if err == nil || err.Error() != tc.want {
			t.Errorf("files %v:\n got: %v\nwant: %s", keys(tc.files), err, tc.want)
		}
	}
}

func TestEmbeddedMigrationsLoad(t *testing.T) {
	ms, err := loadMigrations(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 || ms[0].name != "0001_server_runs.sql" {
		t.Errorf("embedded migrations: %+v", ms)
	}
}

// A migration that fails part way leaves nothing behind: each step is
// one transaction, and user_version moves with it.
func TestFailedMigrationRollsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ms, err := loadMigrations(fstest.MapFS{
		"m/0001_a.sql": {Data: []byte("CREATE TABLE a (x);")},
		"m/0002_b.sql": {Data: []byte("CREATE TABLE b (x);\nCREATE TABLE a (x);")},
	}, "m")
	if err != nil {
		t.Fatal(err)
	}
	err = migrate(context.Background(), db, ms)
	want := "applying migration 0002_b.sql: SQL logic error: table a already exists (1)"
	if err == nil || err.Error() != want {
		t.Errorf("error:\n got: %v\nwant: %s", err, want)
	}
	if v := userVersion(t, db); v != 1 {
		t.Errorf("user_version = %d after a failed step 2, want 1", v)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM sqlite_schema WHERE name = 'b'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Error("table b from the failed step is still there")
	}
}

func keys(m fstest.MapFS) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// benchBatches stores b.N rows in all, made by row, in batches of size
// through add, so that ns/op is per row at any -benchtime; it reports rows
// a second as unit.
func benchBatches[T any](b *testing.B, size int, unit string, row func() T, add func(context.Context, []T) error) {
	ctx := context.Background()
	batch := make([]T, size)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += size {
		n := min(size, b.N-i)
		for j := range n {
			batch[j] = row()
		}
		if err := add(ctx, batch[:n]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), unit)
}
