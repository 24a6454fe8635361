// Package store is mcptray's SQLite database (modernc.org/sqlite, WAL mode):
// the schema, its embedded numbered migrations, and the queries. It is a
// leaf: it imports neither app nor mcp. A Store is safe for concurrent use;
// Close waits for nothing but the database handle.
package store
