-- One row per launch of a downstream server process. exited, exit_code and
-- reason stay NULL/empty while the process runs; a row still open when an
-- instance starts was left by a crashed instance, and its process group is
-- reaped. Times are UTC text in the fixed-width form
-- 2006-01-02T15:04:05.000000000Z, so they sort as text.
CREATE TABLE server_runs (
	id        INTEGER PRIMARY KEY,
	server    TEXT    NOT NULL,
	pid       INTEGER NOT NULL,
	pgid      INTEGER NOT NULL,
	instance  TEXT    NOT NULL,
	started   TEXT    NOT NULL,
	exited    TEXT,
	exit_code INTEGER,
	reason    TEXT    NOT NULL DEFAULT ''
);

CREATE INDEX server_runs_by_server ON server_runs (server, started DESC, id DESC);
CREATE INDEX server_runs_open ON server_runs (id) WHERE exited IS NULL;
