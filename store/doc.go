// Package store is mcptray's SQLite database (modernc.org/sqlite, WAL mode):
// the schema, its embedded numbered migrations, and the queries. It is a
// leaf: it imports neither app nor mcp. A Store is safe for concurrent use;
// Close waits for nothing but the database handle.
//
// [Open] creates the file (0600) and its folder (0700) and applies the
// migrations in migrations/NNNN_name.sql in order, one transaction each,
// recording the last applied number in PRAGMA user_version; a database
// from a newer mcptray is refused. A schema change is a new numbered file,
// never an edit to a released one. Times are stored as fixed-width UTC
// text (2006-01-02T15:04:05.000000000Z), so text order is time order.
// [Open]'s error matches [ErrBroken] for a file SQLite cannot open (the
// caller moves it aside: [MoveAside]); [Store.Replaced] and [Store.Reopen]
// notice and replace a database file deleted or replaced while open (the
// pool is swapped atomically; calls in flight on the old one finish or
// fail). The store starts no goroutines. Its pool holds at most maxOpenConns
// connections (store.go): a caller over the bound waits for one.
package store
