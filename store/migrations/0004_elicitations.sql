-- The secret inbox's audit trail: one row per request a person was asked
-- (an elicitation from a server, or a ${input:ID} prompt), never a value.
-- fields is a JSON array of the field names; outcome is accept, decline,
-- cancel or timeout; closed_by says who closed it (cli, ui, deadline,
-- server, complete, …). Times are UTC text, formatTime.
CREATE TABLE elicitations (
	id         INTEGER PRIMARY KEY,
	server     TEXT NOT NULL,
	tool       TEXT NOT NULL DEFAULT '',
	mode       TEXT NOT NULL,
	message    TEXT NOT NULL,
	fields     TEXT NOT NULL,
	outcome    TEXT NOT NULL,
	closed_by  TEXT NOT NULL DEFAULT '',
	created_at TEXT NOT NULL,
	closed_at  TEXT NOT NULL
);

CREATE INDEX elicitations_by_time ON elicitations (created_at DESC, id DESC);

-- Values of ${input:ID} config variables that are not passwords (those go
-- to the OS keyring, entry input/ID). Asked once through the inbox; deleted
-- by `mcptray inputs forget ID`.
CREATE TABLE inputs (
	id      TEXT PRIMARY KEY,
	value   TEXT NOT NULL,
	updated TEXT NOT NULL
);
