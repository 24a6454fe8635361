-- Events: notifications with a method outside the MCP protocol
-- ("event/new_email", …) that downstream servers push, in the order they
-- were received (id). params is the JSON object as the server sent it
-- ("{}" when it sent none). acked_at stays NULL until the person or an
-- assistant acknowledges the event; acked events past the retention period
-- are deleted. Times are UTC text, formatTime.
CREATE TABLE events (
	id          INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused, so "since id" never skips one
	server      TEXT NOT NULL,
	method      TEXT NOT NULL,
	params      TEXT NOT NULL,
	received_at TEXT NOT NULL,
	acked_at    TEXT
);

CREATE INDEX events_unacked ON events (id) WHERE acked_at IS NULL;
CREATE INDEX events_by_server ON events (server, id);
