-- The last tools/list of each server, for the gateway's "stable" mode:
-- clients that ignore list_changed still see every configured server's tools.
CREATE TABLE tools_cache (
    server  TEXT PRIMARY KEY,
    tools   TEXT NOT NULL, -- JSON array of tool objects, as the server sent them
    updated TEXT NOT NULL  -- UTC, formatTime
);
