-- What an approved launch ran beyond its fingerprint, as JSON
-- {"values": {KEY: HASH}, "files": {PATH: MARK}}: the keyed hashes of its
-- environment and header values (never a value) and the SHA-256 of the
-- user-writable files it runs, so a prompt can say which of them changed.
ALTER TABLE launch_approvals ADD COLUMN detail TEXT NOT NULL DEFAULT '{}';
