// Package config reads and edits mcptray's mcp.json.
//
// [Parse] and [Load] turn the file into a [Config]: the servers in file order
// (from the Claude Desktop / Cursor "mcpServers" object and VS Code's
// "servers" object), VS Code's "inputs", and the app settings under
// "x-mcptray". The file may be JSONC: // and /* */ comments and trailing
// commas are accepted. Only a file that cannot be used at all (bad syntax, a
// top level that is not an object, "mcpServers"/"servers" not objects, bad
// "inputs" or "x-mcptray") makes Parse fail, with a [*SyntaxError] that gives
// the line and column. A problem in one server entry never fails the file: it
// goes into that [Server]'s Err, and the other entries are unaffected.
//
// Variables are resolved while parsing, from an [Env], in command, args, env
// values, envFile, cwd, url and header values: ${env:NAME}, ${NAME},
// ${NAME:-default} (the default, itself expanded, when NAME is unset or
// empty), ${userHome}, a leading ~ (command, args, envFile, cwd), ${self},
// ${keyring:NAME}, and ${pathSeparator} / ${/}. "$" without "{" is literal.
// An unset variable refuses the entry with a reason naming the variable; it
// never becomes an empty string. ${input:ID} takes a value given earlier
// through [Env].Input; one not given yet refuses the entry with an
// [*InputNeededError], which the app asks for through its inbox. VS Code's
// editor variables (${workspaceFolder}, ${file}, ${config:...}, ...) and any
// other ${...} form are refused with a reason. Error messages never contain a resolved value,
// and a refused Server drops what it had resolved.
//
// A name defined twice (in "mcpServers" and "servers", or twice in one)
// appears once in Config.Servers, at its first place, refused; names in
// Servers are unique.
//
// A file over [MaxFileSize] (4 MiB) or with more than [MaxServers] (1000)
// server entries is refused as a whole, with a [*SyntaxError] about the
// whole file; [ReadFile] (and so [Load]) reads no more than the cap.
//
// [SetDisabled] rewrites one entry's enable state in the raw bytes and keeps
// every other byte. The general editor does the same for any member of any
// JSONC file (mcp.json, an assistant's config): [SetMember] replaces or adds
// one (creating missing parents), [RemoveMember] takes one out with exactly
// the separator and line it added, [AppendElement] adds to an array, and
// [Lookup] and [Members] read values; see edit.go for the style rules.
// [WriteAtomic] puts the result on disk with a temp file and
// a rename, at the end of a chain of symlinks ([Links], [Target]), which
// stays. [Default], [DefaultPath] and [EnsureDefault] make the first-run
// file.
//
// The package is pure Go: it starts no goroutines and holds no state between
// calls, except the per-process key that [Server.Fingerprint] hashes with.
package config
