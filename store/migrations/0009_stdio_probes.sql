-- Which first request each stdio server takes (initialize on 2025-11-25,
-- or server/discover on 2026-07-28), learned where it refused the other,
-- so that its next start, in this mcptray or the next, goes straight to
-- it. Keyed by a SHA-256 of the server's launch (its launch fingerprint),
-- never a command line, an argument or an environment value.
CREATE TABLE stdio_probes (
    fingerprint BLOB PRIMARY KEY, -- 32 bytes
    version     TEXT NOT NULL,    -- the protocol version it starts with
    learned     TEXT NOT NULL     -- UTC, formatTime
);
