-- Pinned tool descriptions (DESIGN.md §14): for each server's tool, the
-- hash of its name, description, input schema and annotations when the
-- person last accepted it (or when it was first seen), and that version
-- itself (JSON), to show what changed. A later tools/list that changes a
-- pinned tool is held back until the person approves the change.
CREATE TABLE tool_pins (
	server  TEXT NOT NULL,
	tool    TEXT NOT NULL,
	hash    TEXT NOT NULL,
	pinned  TEXT NOT NULL,
	updated TEXT NOT NULL,
	PRIMARY KEY (server, tool)
);
