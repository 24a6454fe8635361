-- What the person allowed each server entry to run (DESIGN.md §14): the
-- fingerprint of its launch (config.Launch: the resolved executable, the
-- arguments as written, the names of its environment variables, the
-- working directory, the URL and header names; never a secret value), the
-- command line as it was shown, when, and how: "person" (the inbox or
-- `mcptray approve`), "mcptray" (an edit mcptray made itself) or
-- "first-start" (the entries present when this version first started).
CREATE TABLE launch_approvals (
	server      TEXT PRIMARY KEY,
	fingerprint TEXT NOT NULL,
	command     TEXT NOT NULL,
	approved    TEXT NOT NULL,
	how         TEXT NOT NULL CHECK (how IN ('person', 'mcptray', 'first-start'))
);

-- One-time facts of this data dir, by name (e.g. "launch-approvals-seeded").
CREATE TABLE flags (
	name  TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
