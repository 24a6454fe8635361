-- One row per tool call the gateway forwarded to a server: which tool,
-- when, how long and how it ended. Never its arguments or its result.
-- started is UTC text (formatTime); duration_us is in microseconds.
CREATE TABLE tool_calls (
	id          INTEGER PRIMARY KEY,
	server      TEXT    NOT NULL,
	tool        TEXT    NOT NULL,
	started     TEXT    NOT NULL,
	duration_us INTEGER NOT NULL,
	outcome     TEXT    NOT NULL CHECK (outcome IN ('ok', 'error', 'cancelled', 'timeout'))
);

CREATE INDEX tool_calls_by_start ON tool_calls (started);
