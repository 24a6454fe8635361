//go:build linux

package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runHomeDeadline is runHome with the command killed after a minute: a
// setup that blocks (on a FIFO) fails the test instead of hanging it.
func runHomeDeadline(t *testing.T, home string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	exe, _ := os.Executable()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = homeEnv(home)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%v did not finish within a minute", args)
	}
	return exitCode(err), out.String(), errb.String()
}

// `mcptray setup` on an assistant's config that is odd (issue 28, "try to
// break it yourself"): nothing of the person's is lost, a backup is made
// of what is edited, and what cannot be edited is refused with a clear
// error, the file as it was.
func TestSetupOnOddFiles(t *testing.T) {
	exe, _ := os.Executable()
	cursorPath := func(home string) string { return filepath.Join(home, ".cursor", "mcp.json") }

	t.Run("symlink", func(t *testing.T) {
		home := t.TempDir()
		target := filepath.Join(t.TempDir(), "dotfiles", "cursor-mcp.json")
		original := "{\n  \"mcpServers\": {\"a\": {\"command\": \"x\"}}\n}\n"
		writeFile(t, target, original)
		link := cursorPath(home)
		os.MkdirAll(filepath.Dir(link), 0o700)
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if code, out, errs := runHomeDeadline(t, home, "setup", "cursor"); code != 0 || !strings.Contains(out, "backup: "+link+".mcptray-backup") {
			t.Fatalf("setup: %d %q %q", code, out, errs)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Error("the link was replaced by a file")
		}
		if got := readString(t, target); !strings.Contains(got, `"a": {"command": "x"}`) || !strings.Contains(got, exe) {
			t.Errorf("the link's target:\n%s", got)
		}
		if got := readString(t, link+".mcptray-backup"); got != original {
			t.Errorf("the backup: %q", got)
		}
		if code, _, errs := runHomeDeadline(t, home, "setup", "cursor", "--remove"); code != 0 || readString(t, target) != original {
			t.Errorf("--remove: %d %q:\n%s", code, errs, readString(t, target))
		}
	})

	t.Run("read-only", func(t *testing.T) {
		home := t.TempDir()
		path := cursorPath(home)
		original := "{\"mcpServers\": {}}\n"
		writeFile(t, path, original)
		os.Chmod(path, 0o444)
		code, out, errs := runHomeDeadline(t, home, "setup", "cursor")
		if want := "mcptray: " + path + " is read-only; mcptray leaves it as it is (make it writable, or add the entry by hand)\n"; code != 1 || out != "" || errs != want {
			t.Errorf("setup on a read-only file: %d %q %q, want 1 and %q", code, out, errs, want)
		}
		fi, _ := os.Stat(path)
		if readString(t, path) != original || fi.Mode().Perm() != 0o444 {
			t.Errorf("the read-only file changed: %v", fi.Mode())
		}
		if _, err := os.Stat(path + ".mcptray-backup"); err == nil {
			t.Error("a backup was written")
		}
	})

	t.Run("directory", func(t *testing.T) {
		home := t.TempDir()
		path := cursorPath(home)
		os.MkdirAll(path, 0o700)
		code, out, errs := runHomeDeadline(t, home, "setup", "cursor")
		if want := "mcptray: " + path + " is a directory, not a file; mcptray edits only a regular file\n"; code != 1 || out != "" || errs != want {
			t.Errorf("setup on a directory: %d %q %q, want 1 and %q", code, out, errs, want)
		}
		if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
			t.Error("the directory is gone")
		}
	})

	t.Run("fifo", func(t *testing.T) {
		home := t.TempDir()
		path := cursorPath(home)
		os.MkdirAll(filepath.Dir(path), 0o700)
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Skip(err)
		}
		code, out, errs := runHomeDeadline(t, home, "setup", "cursor")
		if want := "mcptray: " + path + " is a named pipe, not a file; mcptray edits only a regular file\n"; code != 1 || out != "" || errs != want {
			t.Errorf("setup on a FIFO: %d %q %q, want 1 and %q", code, out, errs, want)
		}
		if code, out, _ := runHomeDeadline(t, home, "setup"); code != 0 || !strings.Contains(out, "cursor") {
			t.Errorf("setup's list with a FIFO: %d %q", code, out)
		}
		if code, _, errs := runHomeDeadline(t, home, "import", "cursor", "--keep-secrets"); code != 1 || !strings.Contains(errs, path+" is a named pipe, not a file") {
			t.Errorf("import from a FIFO: %d %q", code, errs)
		}
	})

	t.Run("jsonc", func(t *testing.T) {
		home := t.TempDir()
		path := filepath.Join(home, ".config", "Code", "User", "mcp.json")
		original := "// my servers\n{\n  \"servers\": {\n    /* the old one */\n    \"a\": {\"command\": \"x\",},\n  },\n  \"inputs\": [1, 2,],\n}\n"
		writeFile(t, path, original)
		if code, _, errs := runHomeDeadline(t, home, "setup", "vscode"); code != 0 {
			t.Fatalf("setup: %d %q", code, errs)
		}
		got := readString(t, path)
		for _, keep := range []string{"// my servers\n", "/* the old one */", `"a": {"command": "x",},`, `"inputs": [1, 2,],`, exe} {
			if !strings.Contains(got, keep) {
				t.Errorf("after setup, %q is gone:\n%s", keep, got)
			}
		}
		if readString(t, path+".mcptray-backup") != original {
			t.Error("the backup is not the original")
		}
		if code, _, _ := runHomeDeadline(t, home, "setup", "vscode", "--remove"); code != 0 || readString(t, path) != original {
			t.Errorf("after --remove:\n%s", readString(t, path))
		}
	})

	t.Run("empty", func(t *testing.T) {
		home := t.TempDir()
		path := cursorPath(home)
		writeFile(t, path, "")
		if code, _, errs := runHomeDeadline(t, home, "setup", "cursor"); code != 0 || !strings.Contains(readString(t, path), exe) {
			t.Fatalf("setup on an empty file: %d %q:\n%s", code, errs, readString(t, path))
		}
		if fi, err := os.Stat(path + ".mcptray-backup"); err != nil || fi.Size() != 0 {
			t.Errorf("the backup of an empty file: %v", err)
		}
	})

	t.Run("invalid", func(t *testing.T) {
		home := t.TempDir()
		path := cursorPath(home)
		broken := "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"\n  }\n"
		writeFile(t, path, broken)
		code, _, errs := runHomeDeadline(t, home, "setup", "cursor")
		if code != 1 || !strings.HasPrefix(errs, "mcptray: "+path+":4:4: unexpected end of file") {
			t.Errorf("setup on invalid JSON: %d %q", code, errs)
		}
		if readString(t, path) != broken {
			t.Error("the invalid file changed")
		}
	})

	t.Run("codex-quoting", func(t *testing.T) {
		home := t.TempDir()
		path := filepath.Join(home, ".codex", "config.toml")
		original := "model = 'o3' # a literal string\n" +
			"notes = '''\n[mcp_servers.mcptray]\ncommand = \"not a table\"\n'''\n" +
			"[mcp_servers.\"my server\"]\ncommand = 'C:\\tools\\srv.exe'\nargs = [\"--x=\\\"y\\\"\", 'z']\n" +
			"[ mcp_servers . 'mcptray' ]\ncommand = \"/old/mcptray\"\nargs = [\"connect\"]\n" +
			"[mcp_servers.other]\ncommand = \"o\"\n"
		writeFile(t, path, original)
		if code, _, errs := runHomeDeadline(t, home, "setup", "codex"); code != 0 {
			t.Fatalf("setup: %d %q", code, errs)
		}
		got := readString(t, path)
		if !strings.Contains(got, exe) || strings.Contains(got, "/old/mcptray") || strings.Count(got, "mcptray]") != 2 {
			t.Errorf("setup on odd TOML:\n%s", got)
		}
		for _, keep := range []string{"model = 'o3' # a literal string\n", "notes = '''\n[mcp_servers.mcptray]\ncommand = \"not a table\"\n'''\n",
			"[mcp_servers.\"my server\"]\ncommand = 'C:\\tools\\srv.exe'\nargs = [\"--x=\\\"y\\\"\", 'z']\n", "[mcp_servers.other]\ncommand = \"o\"\n"} {
			if !strings.Contains(got, keep) {
				t.Errorf("after setup, %q is gone:\n%s", keep, got)
			}
		}
		if readString(t, path+".mcptray-backup") != original {
			t.Error("the backup is not the original")
		}
	})
}
