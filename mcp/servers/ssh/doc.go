// Package ssh is mcptray's built-in SSH MCP server (`mcptray serve ssh`).
//
// Its tools (list_aliases, add_alias, remove_alias, test_alias, exec,
// read_file, list_files, grep_files, edit_file, replace_lines, upload,
// download, sysinfo, systemd) reach the hosts of named aliases. An alias
// ([Alias]) holds no secret; it is kept by an [AliasStore] that the caller
// supplies (mcptray: the keyring entry ssh/aliases) and read afresh on
// every call. The package does not import mcptray's app packages.
//
// Secrets — a login password, a key passphrase (asked only when the key
// turns out to be encrypted) and a sudo password — are asked through MCP
// elicitation (one masked, writeOnly field, so mcptray's gateway sends it
// to its inbox and never to the assistant), kept in this process's RAM for
// [Settings].SecretTTL, and dropped when the server refuses them. A sudo
// password goes to sudo -k -S (with an empty prompt) as the first line of stdin, never in
// argv or the environment; see remote.go for how a command is wrapped.
//
// Host keys are checked against ~/.ssh/known_hosts (github.com/skeema/
// knownhosts: hashed entries, [host]:port entries, several key types); an
// unknown host is refused with its fingerprint unless the alias accepts
// new keys, and a changed key is always refused with both fingerprints.
//
// Connections are pooled per alias (pool.go): reused while the alias is
// unchanged, kept alive with keepalive@openssh.com, pinged before reuse
// after a pause and redialled once when dead, and closed after
// [Options].IdleTimeout unused. Each pooled connection has one watcher
// goroutine (plus one blocked in Client.Wait); [Server.Close] closes every
// connection and clears the secrets. Each command run has one goroutine
// waiting for it and one feeding its stdin, both ended with the call.
package ssh
