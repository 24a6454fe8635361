package ssh

import (
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// instructions tell the assistant how the server works.
const instructions = `SSH to the hosts the person set up as aliases (list_aliases). ` +
	`Passwords, key passphrases and sudo passwords are asked from the person in mcptray, never from you: ` +
	`just call the tool (exec with sudo: true for root) and wait. Host keys are checked against ~/.ssh/known_hosts.`

// annotation shorthands: every tool says truthfully whether it changes
// anything and whether a change can destroy something.
func ann(title string, readOnly, destructive, idempotent, openWorld bool) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{
		Title:           title,
		ReadOnlyHint:    readOnly,
		DestructiveHint: &destructive,
		IdempotentHint:  idempotent,
		OpenWorldHint:   &openWorld,
	}
}

// aliasArg is the first argument of the tools that work on a host, which
// they embed: the alias to connect with. exec and sysinfo spell theirs
// out, for the description their schemas carry.
type aliasArg struct {
	Alias string `json:"alias"`
}

// mcpServer builds the MCP server with every tool.
func (s *Server) mcpServer() *sdk.Server {
	version := s.opts.Version
	if version == "" {
		version = "dev"
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "mcptray-ssh", Title: "mcptray SSH", Version: version},
		&sdk.ServerOptions{Instructions: instructions})

	sdk.AddTool(srv, &sdk.Tool{
		Name:        "list_aliases",
		Description: "List the SSH aliases: name, host, port, user, auth method, key path, sudo mode, jump host. No secrets are stored or shown.",
		Annotations: ann("List SSH aliases", true, false, true, false),
	}, withInput(s.listAliasesTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name: "add_alias",
		Description: "Add an SSH alias (refused if the name exists; remove it first to change it). " +
			"It holds no password: with auth password, and for sudo prompt, the person is asked when a tool needs it.",
		Annotations: ann("Add an SSH alias", false, false, false, false),
	}, withInput(s.addAliasTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name:        "remove_alias",
		Description: "Remove an SSH alias, closing its connection and forgetting any password typed for it.",
		Annotations: ann("Remove an SSH alias", false, true, true, false),
	}, withInput(s.removeAliasTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name: "test_alias",
		Description: "Connect to an alias afresh and report the login method that worked, the host key " +
			"(known, added, unknown or changed, with its SHA256 fingerprint) and whether sudo would work — without running anything as root. " +
			"An alias with accept_new_host_key adds an unknown host's key to known_hosts.",
		Annotations: ann("Test an SSH alias", true, false, true, true),
	}, withInput(s.testAliasTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name: "exec",
		Description: "Run a command on an alias's host (bash -c). Returns exit code, stdout and stderr (each capped at 64 KiB, with a note when cut). " +
			"sudo: true runs it as root (sudo_user: as that user); a sudo password is asked from the person. " +
			"timeout_s (default 60) kills the remote process group when it passes.",
		Annotations: ann("Run a command over SSH", false, true, false, true),
	}, withInput(s.execTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name:        "read_file",
		Description: "Read a text file on the host: lines offset (from 1) to offset+limit-1 (default 2000 lines, at most 256 KiB), with the file's total line count and sha256.",
		Annotations: ann("Read a remote file", true, false, true, true),
	}, withInput(s.readFileTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name:        "list_files",
		Description: "List a directory on the host (optionally recursive, without following symlinks; capped at max_entries).",
		Annotations: ann("List remote files", true, false, true, true),
	}, withInput(s.listFilesTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name:        "grep_files",
		Description: "Search files on the host for an extended regular expression (grep -E, recursive by default, binary files skipped); returns path, line number and text of each match, capped at max_matches.",
		Annotations: ann("Search remote files", true, false, true, true),
	}, withInput(s.grepTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name: "edit_file",
		Description: "Replace one exact occurrence of old_string with new_string in a file on the host. " +
			"Fails when old_string is not found or occurs more than once. " + keepsText,
		Annotations: ann("Edit a remote file", false, true, false, true),
	}, withInput(s.editFileTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name: "replace_lines",
		Description: "Replace lines start_line..end_line of a file on the host with new_text (end_line = start_line - 1 inserts; empty new_text deletes). " +
			"Pass expected_sha256 from read_file to refuse the edit if the file changed meanwhile. " + keepsText,
		Annotations: ann("Replace lines of a remote file", false, true, false, true),
	}, withInput(s.replaceLinesTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name: "upload",
		Description: "Copy a local file or directory (recursive) to the host. A trailing / or an existing directory as remote_path means into it. " +
			"Local paths must be inside x-mcptray.localRoots (default: the home folder). Existing remote files are overwritten.",
		Annotations: ann("Upload over SFTP", false, true, true, true),
	}, withInput(s.uploadTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name: "download",
		Description: "Copy a file or directory (recursive) from the host to this machine. A trailing / or an existing directory as local_path means into it. " +
			"Local paths must be inside x-mcptray.localRoots (default: the home folder). Existing local files are overwritten.",
		Annotations: ann("Download over SFTP", false, true, true, true),
	}, withInput(s.downloadTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name:        "sysinfo",
		Description: "The host's OS, kernel, architecture, uptime, load, CPU count, memory and disk usage.",
		Annotations: ann("System information", true, false, true, true),
	}, withInput(s.sysinfoTool))
	sdk.AddTool(srv, &sdk.Tool{
		Name: "systemd",
		Description: "A systemd unit on the host: status, logs (recent journal lines), or start, stop and restart (through sudo, " +
			"whose password is asked from the person). Returns the unit's state afterwards.",
		Annotations: ann("Manage a systemd unit", false, true, false, true),
	}, withInput(s.systemdTool))
	return srv
}
