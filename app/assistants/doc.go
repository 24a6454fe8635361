// Package assistants writes mcptray into the MCP configs of the assistants
// a person uses (Claude Desktop, Claude Code, Cursor, VS Code, Windsurf,
// Codex, Gemini CLI, Zed) and brings their servers into mcp.json: what
// `mcptray setup` and `mcptray import` do, and what the Assistants tab
// calls (tab.go: [List], [PlanChange], [PlanImport], [ImportPlan], plain
// values that app's Core wraps for the UI).
//
// [Clients] is the table of the assistants it knows: each one's config file
// per OS ([Client.Path], with $CLAUDE_CONFIG_DIR, $CODEX_HOME and the MSIX
// folder of Claude Desktop on Windows), the shape its servers take, and what
// the person does so that it loads mcptray ([Client.ReloadHint]). [Detect] says
// for each whether its file exists and holds mcptray.
//
// Setup is one entry named "mcptray": the stdio bridge, `<mcptray's absolute
// path> connect` ([Env].Self). [Client.Plan] computes the edit (the file's
// bytes before and after, [Plan.Diff] a unified diff) without touching the
// disk; [Plan.Apply] writes a backup beside the file (<name>.mcptray-backup)
// and then the file, atomically, refusing when the file changed since the
// plan. JSON and JSONC files are edited with app/config's editor, so every
// other byte stays; Codex's TOML with a minimal text edit of the
// [mcp_servers.mcptray] table, checked by parsing the result. A file that
// does not parse is refused with its line and column, and left alone.
// Planning twice gives no change the second time; [Remove] takes out what
// [Add] put in (see docs/assistants.md for the exact rules).
// [Client.WithMode] is the client with an entry in another tool-list mode
// (`connect --tools dynamic`); an entry in any mode is setup's own
// ([Status].Mode says which), and [Client.ToolBudget] is how many tools
// the assistant handles well before dynamic mode is worth offering
// (mode.go).
//
// [NewImport] reads an assistant's servers in its shape and converts them
// to mcp.json entries; [Import.Secrets] are the literal values that look
// like secrets, each with a choice ([Secret.Move]) the caller makes
// (and [Import.AvoidSecretNames] keeps their keyring names from
// overwriting ones taken);
// [Import.Plans] computes the edits of mcp.json (through config.SetMember)
// and, optionally, of the assistant's file (its servers taken out, mcptray
// put in); [Import.Apply] stores the moved secrets with the caller's
// function, then writes. Secret values are never in an error, a plan's
// diff, or a String.
//
// [InstalledExecutable] is the one rule for the mcptray that setup, import,
// the tab and the autostart entry name: an installed one over a build in a
// checkout; [InstalledEnv] is [DefaultEnv] with it.
//
// The package starts no goroutines and keeps no state between calls (an
// [ImportPlan]'s choices are guarded by its own mutex, so the tab may call
// Diff and Apply from any goroutine); it imports app/config, not app, so
// the CLI and the UI can both use it.
package assistants
