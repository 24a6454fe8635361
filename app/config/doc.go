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
// # Editing mcp.json
//
// Every write of mcp.json that mcptray makes is an edit of a [File], the
// one family of them (file.go): [File.Edit] reads the file ([ReadFile]),
// hands its bytes to a pure byte edit, checks that the file is still what
// it read, and writes the result with the File's [Writer] (by default
// [WriteAtomic]); a File makes one edit at a time. On top of it are the
// named edits: [File.SetEnabled] (a toggle), [File.SetToolEnabled] (a
// tool's switch in disabledTools), [File.AllowTool] (allowTools),
// [File.SetSetting] (an "x-mcptray" setting), [File.Add] and [File.Remove]
// (an entry, from the form [Entry]; entries.go) and [File.Replace] (the
// whole file, as an import or a running instance's client writes it;
// [ErrChanged] when it changed meanwhile).
//
// "mcptray writes mcp.json, and that needs no approval" has one entry
// point: a File whose Writer makes the write mcptray's own, recording the
// launches the edit adds or changes as approved before it writes. This
// package does no approving (that needs the store and the running core):
// the app gives that File. A command (`mcptray add`, `remove`, `import`,
// `toggle`, `tools`) gets it from app.OwnFile, which writes through the
// running instance's control API (control.Client.ReplaceConfig, then the core's
// File.Replace) or, with none running, approves in the data dir's store
// and writes; inside the instance, the core's own File (app's Core.ownWrite
// as Writer) makes the toggles, switches and the Servers and Assistants
// tabs' edits. A File made with NewFile(path, nil) writes plainly: what it
// adds waits for the person's yes.
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
// Where things are: mcp.json in os.UserConfigDir()/mcptray ([DefaultPath]:
// ~/.config/mcptray on Linux, %APPDATA%\mcptray on Windows,
// ~/Library/Application Support/mcptray on macOS); the data dir
// ([DefaultDataDir], [SystemDataDir]) in ~/.local/state/mcptray on Linux,
// %LOCALAPPDATA%\mcptray on Windows (machine-local: a database, logs and
// a lock have no place in a roaming profile) and
// ~/Library/Application Support/mcptray/data on macOS (beside mcp.json,
// in a folder of its own).
//
// The package is pure Go: it starts no goroutines and holds no state between
// calls, except the per-process key that [Server.Fingerprint] hashes with,
// the cache of launch files' hashes, and each [File]'s mutex, held by the
// caller's goroutine for the whole of one edit (its Writer runs under it).
package config
