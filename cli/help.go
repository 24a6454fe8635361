package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// command is one entry of the help: a command (`inbox answer`) or a group
// of them (`ssh alias`). Adding a command's help is adding one entry to
// commands; its flags come from the command's own FlagSet (parse turns
// -h/--help into a helpRequest carrying it), so they are never written
// twice.
type command struct {
	path    string // the words after mcptray: "inbox answer"
	args    string // what follows the path in the usage line
	summary string // one line, for the list in `mcptray --help` and in its group's help
	about   string // what it does, in a few sentences
	example string // one or more command lines, with a comment each
	// listed: shown in `mcptray --help` (a group's subcommands may be
	// left to the group's own help).
	listed bool
	// alsoCommand: a group that is a command too (inbox, events), whose
	// help shows its own flags.
	alsoCommand bool
	// flags describes the flags of a command whose implementation is not
	// in this build yet (its help is ready before it lands); once the
	// command parses its flags with parse, its FlagSet is shown instead.
	flags string
}

// commands is every command's help, in the order `mcptray --help` lists
// them. A path with subcommands (another entry's path starts with it and
// a space) is a group.
var commands = []command{
	{path: "run", args: "[--config FILE] [--data DIR] [--log FILE]", listed: true,
		summary: "the tray app (the default command)",
		about: "Starts the tray app: the core that supervises the servers in mcp.json, the gateway assistants connect to, and the tray icon with its window. " +
			"Without a display, or in a build without the desktop UI, it runs headless, as `mcptray daemon`. One instance runs per data dir.",
		example: "mcptray                          # the same as mcptray run\nmcptray run --log /tmp/mcptray.log"},
	{path: "daemon", args: "[--config FILE] [--data DIR] [--log FILE]", listed: true,
		summary: "the same core without a GUI",
		about:   "Starts the core without the tray: for servers, containers and sessions without a desktop. `mcptray connect` starts it when no instance runs and there is no display.",
		example: "mcptray daemon --log ~/.local/state/mcptray/mcptray.log"},
	{path: "window", args: "[--tab TAB]", listed: true,
		summary: "open the main window of the running tray app",
		about: "Opens the tray app's window (servers, inbox, events, SSH, Google, assistants, settings) as a process of its own, over the running instance, " +
			"as the tray's Open mcptray… does: a window already open comes to the front instead. Closing it gives its memory back; the tray app keeps running.",
		example: "mcptray window\nmcptray window --tab Inbox"},
	{path: "popup", args: "",
		summary: "show the waiting requests in the popup",
		about:   "Shows the inbox's waiting requests one by one, oldest first, in the small popup the tray app opens when a server asks; it closes when none is left.",
		example: "mcptray popup"},
	{path: "status", args: "[--json]", listed: true,
		summary: "servers: name, state, pid, tools, restarts, error",
		about:   "Shows every server of the running instance, the config error if mcp.json does not parse (the last good config keeps running), and where the HTTP endpoint listens.",
		example: "mcptray status\nmcptray status --json | jq '.servers[] | select(.state == \"error\")'"},
	{path: "toggle", args: "NAME on|off", listed: true,
		summary: `turn a server on or off (rewrites its "disabled" in mcp.json)`,
		about:   `Rewrites only that entry's "disabled" key in mcp.json, keeping every other byte; the running instance applies it. Works without a running instance too.`,
		example: "mcptray toggle gmail on"},
	{path: "restart", args: "NAME", listed: true,
		summary: "restart one server, resolving its variables again",
		about: "Stops and starts one server with its backoff reset. Its variables (${env:…}, ${keyring:…}, ${input:…}) are resolved again first, so a secret set since it failed is used; " +
			"an ${input:ID} that was declined is asked again.",
		example: "mcptray restart notes"},
	{path: "add", args: "NAME [--env K=V]... [--secret KEY]... [--cwd DIR] [--disabled] -- COMMAND [ARGS...] | NAME --url URL [--header K=V]...", listed: true,
		summary: "add a server to mcp.json without writing JSON",
		about: "Adds an entry to mcp.json: a stdio server, whose command line follows -- verbatim (dashes and all), or an http one with --url. " +
			"It is checked as loading checks it (an entry that would be refused is not written, and the reason is said), then written as a minimal edit, every other byte of the file kept; " +
			"the running instance starts it. --secret KEY asks for the value without echo (or reads it from stdin: one line each for several), stores it in the keyring " +
			"and writes ${keyring:NAME-KEY}; with --url it is a header. A name that exists is refused: `mcptray remove NAME` first, or --replace to edit that entry in place " +
			"(its other keys, such as disabled, envFile and x-mcptray, kept). Names have letters, digits, _ and -. Works without a running instance too; a missing mcp.json is created with the built-in servers.",
		example: "mcptray add github --secret GITHUB_PERSONAL_ACCESS_TOKEN -- npx -y @modelcontextprotocol/server-github\n" +
			"mcptray add notes --env LOG_LEVEL=debug --cwd ~/notes -- uvx notes-mcp --read-only\n" +
			"printf 'Bearer %s\\n' \"$TOKEN\" | mcptray add remote --url https://example.com/mcp --secret Authorization   # the whole header value"},
	{path: "remove", args: "NAME", listed: true,
		summary: "take a server out of mcp.json",
		about: "Takes the entry out of mcp.json, with its line, every other byte of the file kept; the running instance stops the server. " +
			"The ${keyring:…} secrets it used stay in the keyring (another entry may use them): it names them, and `mcptray secret remove NAME` deletes one.",
		example: "mcptray remove github"},
	{path: "tools", args: "NAME [on|off TOOL] [--json]", listed: true,
		summary: "a server's tools and their switches",
		about: "Lists a server's tools: name, whether it is on (off, held back, or asks before each call), its hints (read-only, destructive, idempotent, open-world), title and the first line of its description. " +
			"A stopped server shows the tools last seen. `tools NAME off TOOL` turns one tool off: it is no longer listed to assistants and its calls are refused; " +
			"mcptray writes it into the entry's x-mcptray.disabledTools (which takes globs too, like \"move_*\"), keeping every other byte of mcp.json, and the server keeps running. Works without a running instance too.",
		example: "mcptray tools filesystem\nmcptray tools filesystem off write_file\nmcptray tools filesystem --json | jq '.tools[] | select(.destructive)'"},
	{path: "approve", args: "NAME", listed: true,
		summary: "allow a new or changed entry of mcp.json to run",
		about: "An entry that an edit of mcp.json added, or whose command, arguments, environment names, working directory, URL, header names or executable changed, " +
			"waits in state needs-approval: a config edit runs code. `mcptray approve NAME` allows it to run as it is now (so does its request in `mcptray inbox`). " +
			"Edits mcptray makes itself, and edits of only \"disabled\" or \"x-mcptray\", need no approval; x-mcptray.trustConfigEdits: true turns this off.",
		example: "mcptray status          # notes  needs-approval …\nmcptray approve notes"},
	{path: "logs", args: "NAME [-f]", listed: true,
		summary: "a server's log",
		about:   "Prints a server's log (its stderr and mcptray's lifecycle lines), with the control characters a server wrote shown escaped.",
		example: "mcptray logs ssh -f"},
	{path: "events", args: "[--json] [--all] [--server NAME] [--since ID] [--limit N]", listed: true, alsoCommand: true,
		summary: "events the servers pushed",
		about: "Prints one page of events, oldest first: without --since the newest N unacknowledged ones, with --since the N after that id (so --since pages forward). " +
			"A last line says how many were left out.",
		example: "mcptray events --server gmail\nmcptray events --all --since 0 --limit 1000 --json"},
	{path: "events ack", args: "ID...|--all [--server NAME]", listed: true,
		summary: "mark events read",
		about:   "Acknowledges events by id (as `mcptray events` shows them), or every unacknowledged one with --all (of one server with --server).",
		example: "mcptray events ack 12 13\nmcptray events ack --all --server gmail"},
	{path: "history", args: "[--json] [--limit N]", listed: true,
		summary: "the last tool calls (no arguments, no results)",
		about:   "Lists the last tool calls made through the gateway: when, which server and tool, how long, and the outcome. Arguments and results are never kept.",
		example: "mcptray history --limit 20"},
	{path: "connect", args: "[--server NAME] [--tools live|stable|dynamic]", listed: true,
		summary: "the stdio MCP endpoint an assistant runs",
		about: "What an assistant's config runs: a stdio MCP server that joins the running instance's gateway, starting the tray app (or the daemon, without a display) when none runs. " +
			"With --server it exposes one server, with its own tool names.",
		example: `{"mcpServers": {"mcptray": {"command": "/usr/local/bin/mcptray", "args": ["connect"]}}}   # in the assistant's config`},
	{path: "setup", args: "[CLIENT] [--dry-run] [--remove] [--tools MODE]", listed: true,
		summary: "write mcptray into an assistant's config",
		about: "Without CLIENT, lists the assistants mcptray knows (claude-desktop, claude-code, cursor, vscode, windsurf, codex, gemini, zed): whether each one's config exists, whether mcptray is in it, and its path. " +
			"With CLIENT, adds one entry named mcptray to that config: `<this mcptray's absolute path> connect` (Claude Desktop, which ignores list_changed, gets --tools stable). " +
			"Every other byte of the file stays (comments, order, formatting); a copy is written beside it first (<file>.mcptray-backup); a file that does not parse is refused with its line and column. " +
			"Running it again changes nothing; --remove takes out what it added. It says when the assistant must be restarted. " +
			"When mcptray serves more tools than the assistant handles well (Cursor: 40; Claude Desktop, Windsurf, Gemini CLI, Zed: 60; never for Claude Code, Codex or VS Code, which search or group tools themselves), it offers dynamic mode — asked on a terminal, else said; --tools live|stable|dynamic chooses.",
		example: "mcptray setup                              # the assistants and their configs\n" +
			"mcptray setup claude-desktop --dry-run     # the change, as a diff\n" +
			"mcptray setup claude-desktop\n" +
			"mcptray setup cursor --tools dynamic       # a tool search instead of every tool\n" +
			"mcptray setup vscode --remove"},
	{path: "import", args: "CLIENT [--dry-run] [--move-secrets|--keep-secrets] [--replace]", listed: true,
		summary: "bring an assistant's servers into mcp.json",
		about: "Copies the servers of an assistant's config into mcp.json, in mcptray's shape (VS Code's servers and inputs, Codex's TOML, Zed's context_servers, Claude Code's user and project entries). " +
			"A name mcp.json has already gets a suffix (-2, -3…); a server already there with the same command line is skipped. " +
			"Values of env variables and headers whose names look like tokens, keys or passwords can move into the keyring, mcp.json getting ${keyring:NAME} references: on a terminal it asks; otherwise --move-secrets or --keep-secrets decides, and without either it refuses. " +
			"It then offers to take the servers out of the assistant's config and put mcptray in their place, so that none runs twice (--replace; --no-replace, the default without a terminal, leaves it). " +
			"Secrets are stored through the running mcptray when there is one, else in the keyring directly; never shown.",
		example: "mcptray import claude-desktop --dry-run    # the changes, as diffs (secrets hidden)\n" +
			"mcptray import claude-desktop              # asks about secrets, then about replacing\n" +
			"mcptray import vscode --move-secrets --replace"},
	{path: "token", listed: true,
		summary: "the HTTP endpoint's bearer token",
		about:   "Prints the bearer token of the HTTP endpoint (created on first use and kept in the OS keyring, entry http-token).",
		example: `curl -H "Authorization: Bearer $(mcptray token)" http://127.0.0.1:7823/mcp`},
	{path: "inbox", args: "[--json]", listed: true, alsoCommand: true,
		summary: "requests waiting for an answer (never a value)",
		about:   "Lists the requests waiting in the secret inbox: passwords, confirmations, sign-ins and ${input:ID} values servers asked for, and tool calls waiting for your approval. Answer them with `mcptray inbox answer`.",
		example: "mcptray inbox\nmcptray inbox --json"},
	{path: "inbox answer", args: "ID [--field NAME=VALUE]... [--yes|--decline|--cancel] [--session|--always]", listed: true,
		summary: "answer one request",
		about: "Answers one request. On a terminal without flags it asks field by field, secrets without echo. --field NAME=- reads that value from stdin, never from the command line; " +
			"lists are comma-separated. --yes (or no flag and no terminal) accepts, with the defaults for the fields not given. " +
			"A tool call's approval (kind approval) is allowed once with --yes, for the rest of that assistant's session with --session, " +
			"or from now on with --always (written to the entry's x-mcptray.allowTools); --decline refuses the call.",
		example: "mcptray inbox answer 3fa2c1e0\nprintf '%s\\n' \"$PW\" | mcptray inbox answer 3fa2c1e0 --field password=-\nmcptray inbox answer 3fa2c1e0 --decline\nmcptray inbox answer 5be01a77 --session"},
	{path: "inbox watch", args: "[--json]", listed: true,
		summary: "answer requests as they come",
		about:   "Waits for requests and, on a terminal, asks for each in turn. With --json it prints each inbox event as a JSON line instead.",
		example: "mcptray inbox watch"},
	{path: "inputs", args: "forget ID",
		summary: "the values given for ${input:ID}",
		about:   "The values of mcp.json's ${input:ID} variables, given once through the inbox."},
	{path: "inputs forget", args: "ID", listed: true,
		summary: "forget a ${input:ID} value; the entries using it ask again",
		about:   "Clears the value of ${input:ID} from memory, the OS keyring (entry input/ID) and the database; the servers using it ask for it again. Works without a running instance too.",
		example: "mcptray inputs forget notes-key"},
	{path: "secret", args: "set|list|remove",
		summary: "the values of ${keyring:NAME}",
		about: "The secrets mcp.json reads with ${keyring:NAME}, kept in the OS keyring (service mcptray, username keyring/NAME). " +
			"With a running instance the change goes through it, and the servers using the secret restart with the new value."},
	{path: "secret set", args: "NAME", listed: true,
		summary: "store a ${keyring:NAME} value (read from the terminal or stdin, never argv)",
		about: "Stores the value of ${keyring:NAME}. On a terminal it asks for the value without echo; otherwise it reads stdin (one trailing newline dropped, so a file works too). " +
			"The value is never taken from the command line, where other users and the shell history could see it. A server waiting in error for it restarts.",
		example: "mcptray secret set notes-key                 # asks, without echo\nprintf '%s\\n' \"$TOKEN\" | mcptray secret set remote-token"},
	{path: "secret list", args: "[--json]", listed: true,
		summary: "the names of the stored secrets (never a value)",
		about:   "Lists the names of the ${keyring:NAME} secrets in the OS keyring. Values are never shown.",
		example: "mcptray secret list"},
	{path: "secret remove", args: "NAME", listed: true,
		summary: "delete a ${keyring:NAME} value",
		about:   "Deletes the secret from the OS keyring. Servers using it are refused (state error) until it is set again.",
		example: "mcptray secret remove notes-key"},
	{path: "ssh", args: "alias list|add|remove|test",
		summary: "the built-in SSH server's settings",
		about:   "The built-in SSH server's aliases, kept in the OS keyring (entry ssh/aliases; never a password)."},
	{path: "ssh alias", args: "list|add|remove|test", listed: true,
		summary: "the SSH server's aliases (in the keyring)",
		about:   "The named SSH destinations an assistant may use through the built-in ssh server. Passwords, passphrases and sudo passwords are never stored: they are asked in the inbox when needed."},
	{path: "ssh alias list", args: "[--json]",
		summary: "the aliases",
		about:   "Lists the aliases: destination, login method, sudo mode, jump alias, and whether new host keys are accepted.",
		example: "mcptray ssh alias list --json"},
	{path: "ssh alias add", args: "NAME --host H --user U [flags]",
		summary: "add an alias",
		about: "Adds an alias. Without --key, auth key uses the first of ~/.ssh/id_ed25519, id_ecdsa and id_rsa. " +
			"An unknown host's key is refused unless --accept-new-host-key adds it to ~/.ssh/known_hosts on first contact.",
		example: "mcptray ssh alias add prod --host prod.example.com --user deploy --key ~/.ssh/id_ed25519 --sudo prompt"},
	{path: "ssh alias remove", args: "NAME",
		summary: "remove an alias",
		about:   "Removes an alias from the keyring entry.",
		example: "mcptray ssh alias remove prod"},
	{path: "ssh alias test", args: "NAME [--json]",
		summary: "connect once and report",
		about:   "Connects with the alias and reports the login method, the host key and its fingerprint, and whether sudo needs a password. It runs nothing as root; a password it needs is asked on the terminal.",
		example: "mcptray ssh alias test prod"},
	{path: "auth", args: "login|logout|list|google …",
		summary: "sign-ins: remote servers, and the built-in servers' accounts",
		about: "The sign-ins of remote (http) servers that ask for one (OAuth), and the accounts of the built-in Google servers (gcal, gmail). " +
			"Tokens are kept in the OS keyring only, never shown."},
	{path: "auth login", args: "NAME [--no-browser]", listed: true,
		summary: "sign in to a remote server",
		about: "Signs in to a remote server that asks for it (state needs-sign-in), through the running instance: it opens the browser ($BROWSER, else the desktop's), " +
			"waits for the loopback redirect on 127.0.0.1, keeps the tokens in the keyring and restarts the server. " +
			"--no-browser prints the address on stdout instead and waits (SSH sessions): open it in any browser; one on another machine ends on a 127.0.0.1 address it cannot open, so paste that address into this command's input. " +
			"The inbox's \"Sign in to NAME at HOST\" request does the same.",
		example: "mcptray auth login linear\nmcptray auth login linear --no-browser   # prints the URL to open; paste where the browser ended"},
	{path: "auth logout", args: "NAME", listed: true,
		summary: "revoke and forget a remote server's sign-in",
		about:   "Revokes the server's tokens where it supports revocation, forgets them, and restarts the server, which then waits for a sign-in.",
		example: "mcptray auth logout linear"},
	{path: "auth list", args: "[--json]", listed: true,
		summary: "remote servers' sign-ins: issuer, scopes, expiry, state",
		about:   "Lists each remote (http) server of mcp.json with its authorization server (issuer), the scopes granted, when the access token expires, and its state (signed-in, signed-out or expired). Never a token.",
		example: "mcptray auth list\nmcptray auth list --json"},
	{path: "auth google", args: "client|add|list|remove", listed: true,
		summary: "Google accounts for gcal and gmail",
		about: "Google accounts, signed in through your own Google Cloud \"Desktop app\" OAuth client. Only refresh tokens are stored, in the OS keyring (entries google/<email>); " +
			"the client's id and secret are in google/client. MCPTRAY_GOOGLE_API_URL moves both APIs (tests, Google-compatible endpoints)."},
	{path: "auth google client", args: "FILE",
		summary: "import your OAuth client",
		about: "Imports the OAuth client file Google Cloud's console downloads for a \"Desktop app\" client ({\"installed\": {\"client_id\", \"client_secret\", …}}). " +
			"Its id and secret go into the keyring, entry google/client.",
		example: "mcptray auth google client ~/Downloads/client_secret_1234.apps.googleusercontent.com.json"},
	{path: "auth google add", args: "[--no-browser] [--scopes calendar,gmail]",
		summary: "sign in to an account",
		about: "Signs in to a Google account in the browser ($BROWSER, else xdg-open or open) through a loopback redirect on 127.0.0.1, and waits 5 minutes at most. " +
			"It says which of the scopes asked for were not granted and what that disables. Only the refresh token is stored.",
		example: "mcptray auth google add\nmcptray auth google add --no-browser --scopes calendar   # prints the URL to open",
		flags:   "--no-browser\tprint the URL instead of opening the browser\n--scopes LIST\twhat to allow: calendar, gmail or both (default calendar,gmail)"},
	{path: "auth google list", args: "[--json]",
		summary: "the accounts and their status",
		about:   "Lists the accounts: address, scopes, status (ok or needs-sign-in) and when each was added. Never a token.",
		example: "mcptray auth google list --json",
		flags:   "--json\tprint JSON"},
	{path: "auth google remove", args: "EMAIL",
		summary: "revoke and forget an account",
		about:   "Revokes the account's token at Google, then deletes it from the keyring. When revocation fails (offline), it still deletes, and says so.",
		example: "mcptray auth google remove ada@example.com"},
	{path: "serve", args: "ssh|gcal|gmail",
		summary: "the built-in stdio MCP servers",
		about:   "The built-in MCP servers, speaking MCP on stdin and stdout. mcp.json's default entries run them as ${self} serve NAME; you rarely run them by hand."},
	{path: "serve ssh", listed: true,
		summary: "the built-in SSH server (what mcp.json's \"ssh\" entry runs)",
		about: "The SSH MCP server on stdio, until the client closes stdin. Its aliases are in the keyring (`mcptray ssh alias`), its settings in mcp.json's x-mcptray.ssh " +
			"(read from $MCPTRAY_CONFIG, which mcptray sets for the servers it starts).",
		example: `"ssh": {"command": "${self}", "args": ["serve", "ssh"]}   # in mcp.json`},
	{path: "serve gcal", args: "[--account EMAIL]", listed: true,
		summary: "the built-in Google Calendar server",
		about: "The Google Calendar MCP server on stdio: calendars, events, free time, and new or changed events as notifications. " +
			"Its account is --account EMAIL, else the first one `mcptray auth google add` added; a tool call may name another.",
		example: `"gcal": {"command": "${self}", "args": ["serve", "gcal"]}   # in mcp.json`,
		flags:   "--account EMAIL\tthe account used when a tool call names none"},
	{path: "serve gmail", args: "[--account EMAIL]", listed: true,
		summary: "the built-in Gmail server",
		about: "The Gmail MCP server on stdio: search, read, drafts, threaded replies, labels, attachments saved as files, and new mail as notifications. " +
			"Sending asks you first in the inbox (x-mcptray.google.gmailSend: confirm, allow or drafts-only).",
		example: `"gmail": {"command": "${self}", "args": ["serve", "gmail"]}   # in mcp.json`},
	{path: "version", listed: true,
		summary: "version, commit and Go version (also --version)",
		about:   "Prints mcptray's version, the commit it was built from (and whether the tree had changes), and the Go version that built it.",
		example: "mcptray --version"},
	{path: "help", args: "[COMMAND...]", listed: true,
		summary: "this list, or a command's usage, flags and an example",
		about:   "Prints the list of commands, or one command's usage, flags and an example; `mcptray COMMAND --help` prints the same.",
		example: "mcptray help inbox answer"},
}

// findCommand returns the entry of path ("inbox answer").
func findCommand(path string) (command, bool) {
	i := slices.IndexFunc(commands, func(c command) bool { return c.path == path })
	if i < 0 {
		return command{}, false
	}
	return commands[i], true
}

// subcommands are the entries one word below path.
func subcommands(path string) []command {
	var out []command
	for _, c := range commands {
		if rest, ok := strings.CutPrefix(c.path, path+" "); ok && !strings.Contains(rest, " ") {
			out = append(out, c)
		}
	}
	return out
}

func (c command) group() bool { return len(subcommands(c.path)) > 0 }

// resolve finds the command a command line names: the longest run of its
// leading words (up to the first flag) that is an entry's path. It
// returns "" when the first word is none.
func resolve(args []string) string {
	found := ""
	for n := 1; n <= len(args) && !strings.HasPrefix(args[n-1], "-"); n++ {
		if _, ok := findCommand(strings.Join(args[:n], " ")); ok {
			found = strings.Join(args[:n], " ")
		}
	}
	return found
}

// isHelpFlag reports whether a is one of the spellings of the help flag.
func isHelpFlag(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

// asksHelp reports whether args hold a help flag before a "--".
func asksHelp(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if isHelpFlag(a) {
			return true
		}
	}
	return false
}

// helpRequest is what parse returns for -h/--help: the command's flags,
// for its help. Main prints that help to stdout and exits 0.
type helpRequest struct{ flags *flag.FlagSet }

func (helpRequest) Error() string { return "help requested" }

// writeUsage prints `mcptray --help`: every listed command.
func writeUsage(w io.Writer) {
	fmt.Fprintln(w, "mcptray supervises local MCP servers, gives AI assistants one endpoint for all of them, and asks you, not the model, for secrets.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: mcptray COMMAND [ARGS] [--config FILE] [--data DIR]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	const col = 40 // where the summaries start
	for _, c := range commands {
		if !c.listed {
			continue
		}
		line := strings.TrimSpace(c.path + " " + c.args)
		if len(line) > col-4 { // the summary goes on the next line
			fmt.Fprintf(w, "  %s\n  %*s%s\n", line, col-2, "", c.summary)
			continue
		}
		fmt.Fprintf(w, "  %-*s%s\n", col-2, line, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Every command takes --config FILE (mcp.json; default $MCPTRAY_CONFIG, else the user config dir) and --data DIR (default $MCPTRAY_DATA, else the user state dir).")
	fmt.Fprintln(w, "Exit codes: 0 success, 1 failure (one line on stderr says why), 2 usage error.")
	fmt.Fprintln(w, "Run 'mcptray help COMMAND' or 'mcptray COMMAND --help' for a command's flags and an example.")
}

// writeHelp prints one command's help: usage, what it does, its
// subcommands or flags, and an example. fs is the command's FlagSet; nil
// for a group, a command without flags, or one not in this build.
func writeHelp(w io.Writer, c command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: mcptray %s\n", strings.TrimSpace(c.path+" "+c.args))
	fmt.Fprintln(w)
	fmt.Fprintln(w, wrap(c.about, 78))
	if subs := subcommands(c.path); len(subs) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "commands:")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, s := range subs {
			fmt.Fprintf(tw, "  %s\t%s\n", strings.TrimSpace(s.path+" "+s.args), s.summary)
		}
		tw.Flush()
	}
	switch {
	case fs != nil && hasFlags(fs):
		writeFlags(w, fs)
	case c.flags != "":
		fmt.Fprintln(w)
		fmt.Fprintln(w, "flags:")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, line := range strings.Split(c.flags, "\n") {
			fmt.Fprintf(tw, "  %s\n", line)
		}
		tw.Flush()
	}
	if c.example != "" {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "example:")
		for _, line := range strings.Split(c.example, "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	if c.group() {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Run 'mcptray help %s COMMAND' for a command's flags and an example.\n", c.path)
	}
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// commonFlags are the flags every command takes, listed last.
var commonFlags = []string{"config", "data"}

// writeFlags lists a FlagSet's flags: the command's own, then the common
// ones, each with its value's placeholder (see placeholder) and a default
// that is not the zero value.
func writeFlags(w io.Writer, fs *flag.FlagSet) {
	var own, common []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if slices.Contains(commonFlags, f.Name) {
			common = append(common, f)
		} else {
			own = append(own, f)
		}
	})
	if len(own)+len(common) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "flags:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range append(own, common...) {
		name, usage := placeholder(f)
		dashes := "--"
		if len(f.Name) == 1 {
			dashes = "-"
		}
		spec := dashes + f.Name
		if name != "" {
			spec += " " + name
		}
		switch f.DefValue {
		case "", "0", "false", "[]":
		default:
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(tw, "  %s\t%s\n", spec, usage)
	}
	tw.Flush()
}

// placeholder splits a flag's usage into the name of its value and its
// description. A usage that starts with a back-quoted word ("`FILE` the
// mcp.json to read") names the value with it; otherwise it is
// flag.UnquoteUsage's (a back-quoted word inside, else the type; none for
// a bool).
func placeholder(f *flag.Flag) (name, usage string) {
	if rest, ok := strings.CutPrefix(f.Usage, "`"); ok {
		if name, usage, ok := strings.Cut(rest, "`"); ok {
			return name, strings.TrimSpace(usage)
		}
	}
	return flag.UnquoteUsage(f)
}

// wrap breaks s into lines of at most width columns at spaces.
func wrap(s string, width int) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(s) {
		switch {
		case i == 0:
		case n+1+len(word) > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}

// errUnknownCommand is the dispatch's answer to a command it does not
// have.
var errUnknownCommand = errors.New("unknown command")

// usagePointer is the line under a usage error: where the usage of the
// command the line names is.
func usagePointer(path string) string {
	if path == "" {
		return "run 'mcptray --help' for usage"
	}
	return fmt.Sprintf("run 'mcptray %s --help' for usage", path)
}
