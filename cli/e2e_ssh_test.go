//go:build linux

package cli

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// realSSHD is OpenSSH's sshd on 127.0.0.1, started by scripts/sshd-test.sh
// with two users: mcptray-sudo (sudo asks for the password) and
// mcptray-nopw (sudo NOPASSWD), both logging in with key.
type realSSHD struct {
	port     int
	password string // both users' login and sudo password
	key      string // the client's private key file
	log      *syncBuffer
}

// startSSHD needs root (the script adds users and a sudoers drop-in) and
// openssh-server; without them the test is skipped, except that inside
// `make test` (MCPTRAY_TEST_SESSION=1) as root a missing sshd fails it.
func startSSHD(t *testing.T) *realSSHD {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: scripts/sshd-test.sh adds test users and a sudoers drop-in (CI runs make test as root)")
	}
	for _, bin := range []string{"/usr/sbin/sshd", "sudo"} {
		if _, err := exec.LookPath(bin); err != nil {
			if os.Getenv("MCPTRAY_TEST_SESSION") == "1" {
				t.Fatalf("%s is missing: scripts/deps.sh installs openssh-server and sudo", bin)
			}
			t.Skipf("%s is missing (scripts/deps.sh installs openssh-server and sudo)", bin)
		}
	}
	dir := t.TempDir()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	block, err := gossh.MarshalPrivateKey(priv, "mcptray-e2e")
	if err != nil {
		t.Fatal(err)
	}
	s := &realSSHD{key: filepath.Join(dir, "id_ed25519"), log: new(syncBuffer)}
	if err := os.WriteFile(s.key, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	signer, _ := gossh.NewSignerFromKey(priv)
	pw := make([]byte, 12)
	rand.Read(pw)
	s.password = "pw-" + hex.EncodeToString(pw)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("../scripts/sshd-test.sh", filepath.Join(dir, "sshd"), strconv.Itoa(s.port))
	cmd.Env = append(os.Environ(), "SSHD_TEST_PASSWORD="+s.password,
		"SSHD_TEST_AUTHORIZED_KEY="+strings.TrimSpace(string(gossh.MarshalAuthorizedKey(signer.PublicKey()))))
	cmd.Stdout, cmd.Stderr = s.log, s.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		if strings.Contains(s.log.String(), s.password) {
			t.Error("the password is in sshd's log")
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.port)); err == nil {
			c.Close()
			return s
		}
		select {
		case <-exited:
			t.Fatalf("sshd-test.sh exited:\n%s", s.log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd did not listen within 30s:\n%s", s.log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// toolReply is a tools/call reply as the assistant gets it, with the
// tool's structured result S.
type toolReply[S any] struct {
	Result struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		Structured S `json:"structuredContent"`
	} `json:"result"`
}

func parseToolReply[S any](t *testing.T, line string) toolReply[S] {
	t.Helper()
	var r toolReply[S]
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("reply: %v\n%s", err, line)
	}
	return r
}

// execResult is ssh__exec's reply.
type execResult = toolReply[execOut]

type execOut struct {
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
}

func parseExec(t *testing.T, line string) execResult {
	t.Helper()
	return parseToolReply[execOut](t, line)
}

// The end-to-end run against a real sshd, through `mcptray daemon`
// and `mcptray connect`: ssh__exec with sudo runs `id -u` as root after
// the password is answered with `mcptray inbox answer`; a second call
// within the TTL does not ask; a wrong password is reported and asked
// again; NOPASSWD sudo never asks. The password is nowhere under DATA, in
// the logs or in the upstream bytes.
func TestSSHSudoAgainstRealSSHD(t *testing.T) {
	sshd := startSSHD(t)
	sshKeyring(t)
	t.Setenv("HOME", t.TempDir()) // known_hosts (accept-new) and local roots go here
	port := strconv.Itoa(sshd.port)
	for _, a := range [][]string{
		{"root-pw", "mcptray-sudo", "prompt"},
		{"root-pw2", "mcptray-sudo", "prompt"},
		{"root-nopw", "mcptray-nopw", "nopasswd"},
	} {
		if code, _, errs := cli(t, "ssh", "alias", "add", a[0], "--host", "127.0.0.1", "--port", port, "--user", a[1],
			"--key", sshd.key, "--sudo", a[2], "--accept-new-host-key"); code != 0 {
			t.Fatalf("alias add %s: %s", a[0], errs)
		}
	}
	exe, _ := os.Executable()
	in := startDaemon(t, map[string]any{
		"ssh": map[string]any{"command": exe, "args": []string{"serve", "ssh"}, "env": map[string]string{"GORACE": "atexit_sleep_ms=0"},
			"x-mcptray": map[string]any{"approve": "off"}},
	})
	in.WaitFor("ssh ready", states("ssh", "ready"))
	a := startAssistant(t, in, map[string]any{})

	answer := func(value, wantMsg string) {
		t.Helper()
		l, raw := in.waitRequest("ssh")
		r := l.Requests[0]
		if !strings.Contains(r.Message, wantMsg) || len(r.Fields) != 1 || r.Fields[0].Name != "password" || !r.Fields[0].Secret {
			t.Fatalf("inbox request: %s", raw)
		}
		if code, _, errs := in.Run("inbox", "answer", r.ID, "--field", "password="+value); code != 0 {
			t.Fatalf("inbox answer: %s", errs)
		}
	}
	noRequests := func() {
		t.Helper()
		if _, out, _ := in.Run("inbox", "--json"); strings.Contains(out, `"server": "ssh"`) || strings.Contains(out, `"server":"ssh"`) {
			t.Errorf("an unexpected request: %s", out)
		}
	}
	sudoIDU := map[string]any{"alias": "root-pw", "command": "id -u", "sudo": true}

	// 1. sudo asks once, through the inbox.
	id := a.call("ssh__exec", sudoIDU)
	answer(sshd.password, `SSH alias "root-pw" (mcptray-sudo@127.0.0.1:`+port+`): the sudo password of mcptray-sudo, to run a command as root`)
	if r := parseExec(t, a.wait(id)); r.Result.IsError || r.Result.Structured.Stdout != "0\n" {
		t.Fatalf("sudo id -u: %+v", r.Result)
	}
	// 2. Within the TTL: no question.
	if r := parseExec(t, a.wait(a.call("ssh__exec", sudoIDU))); r.Result.Structured.Stdout != "0\n" {
		t.Fatalf("second sudo id -u: %+v", r.Result)
	}
	noRequests()
	// Without sudo it is the user.
	if r := parseExec(t, a.wait(a.call("ssh__exec", map[string]any{"alias": "root-pw", "command": "id -un"}))); r.Result.Structured.Stdout != "mcptray-sudo\n" {
		t.Errorf("id -un: %+v", r.Result)
	}

	// 3. A wrong password (another alias, so nothing is cached): reported,
	// then asked again.
	id = a.call("ssh__exec", map[string]any{"alias": "root-pw2", "command": "id -u", "sudo": true, "stdin": "not for sudo\n"})
	answer("wrong-"+sshd.password, `SSH alias "root-pw2"`)
	r := parseExec(t, a.wait(id))
	if !r.Result.IsError || len(r.Result.Content) == 0 || !strings.Contains(r.Result.Content[0].Text, "the sudo password for alias root-pw2 (mcptray-sudo) was wrong") {
		t.Fatalf("wrong password: %+v", r.Result)
	}
	id = a.call("ssh__exec", map[string]any{"alias": "root-pw2", "command": "id -u; cat", "sudo": true, "stdin": "for the command\n"})
	answer(sshd.password, `SSH alias "root-pw2"`)
	if r := parseExec(t, a.wait(id)); r.Result.Structured.Stdout != "0\nfor the command\n" {
		t.Fatalf("after the wrong password: %+v", r.Result)
	}

	// 4. NOPASSWD: sudo -n, no question.
	if r := parseExec(t, a.wait(a.call("ssh__exec", map[string]any{"alias": "root-nopw", "command": "id -u", "sudo": true}))); r.Result.Structured.Stdout != "0\n" {
		t.Errorf("nopasswd: %+v", r.Result)
	}
	noRequests()

	// 5. A timed-out command is killed on the host, as root too.
	r = parseExec(t, a.wait(a.call("ssh__exec", map[string]any{"alias": "root-nopw", "command": "echo $$; exec sleep 300", "sudo": true, "timeout_s": 1})))
	if !r.Result.IsError {
		t.Errorf("timeout: %+v", r.Result)
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(r.Result.Structured.Stdout)); err == nil {
		waitFor(t, "the timed-out sleep to die", func() bool { return syscall.Kill(pid, 0) == syscall.ESRCH })
	} else {
		t.Errorf("timeout stdout %q", r.Result.Structured.Stdout)
	}

	// x-mcptray.ssh.localRoots, changed while the server runs (the entry
	// itself is unchanged, so it keeps running and rereads the file).
	dl := t.TempDir()
	cfg, _ := json.Marshal(map[string]any{
		"mcpServers": map[string]any{"ssh": map[string]any{"command": exe, "args": []string{"serve", "ssh"}, "env": map[string]string{"GORACE": "atexit_sleep_ms=0"},
			"x-mcptray": map[string]any{"approve": "off"}}},
		"x-mcptray": map[string]any{"ssh": map[string]any{"localRoots": []string{dl}}},
	})
	if err := os.WriteFile(in.Config+".tmp", cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(in.Config+".tmp", in.Config); err != nil {
		t.Fatal(err)
	}
	down := func(local string) execResult {
		return parseExec(t, a.wait(a.call("ssh__download", map[string]any{"alias": "root-pw", "remote_path": "/etc/passwd", "local_path": local})))
	}
	if r := down(dl + "/"); r.Result.IsError {
		t.Errorf("download into a local root: %+v", r.Result)
	} else if b, _ := os.ReadFile(filepath.Join(dl, "passwd")); !bytes.Contains(b, []byte("mcptray-sudo:")) {
		t.Errorf("downloaded passwd: %q", b)
	}
	if r := down(filepath.Join(os.Getenv("HOME"), "passwd")); !r.Result.IsError || !strings.Contains(r.Result.Content[0].Text, "outside the folders") {
		t.Errorf("download outside the roots: %+v", r.Result)
	}

	// The password is nowhere: not under DATA (logs included), not in
	// mcptray's own log, not in the upstream bytes.
	a.in.Close()
	in.Cmd.Process.Signal(syscall.SIGTERM)
	<-in.Exited
	for where, text := range map[string]string{"mcptray's log": in.Stderr.String(), "the upstream bytes": a.out.String()} {
		if strings.Contains(text, sshd.password) {
			t.Errorf("the password is in %s", where)
		}
	}
	noSecretIn(t, in.Data, sshd.password)
	if b, _ := os.ReadFile(filepath.Join(in.Data, "logs", "ssh.log")); !bytes.Contains(b, []byte("exec")) {
		t.Errorf("the ssh server's log is empty:\n%s", b)
	}
}

// TestSSHEditKeepsTheOwnerAgainstRealSSHD: edit_file as an unprivileged
// user on a real sshd keeps each file's owner, group and mode. A file the
// user owns is replaced atomically (a new inode); a root-owned file the
// user may write (group) is written in place, whether or not its folder
// takes new files; a root-owned file the user may not write is refused,
// saying why, and left as it was. No temporary file is left behind.
func TestSSHEditKeepsTheOwnerAgainstRealSSHD(t *testing.T) {
	sshd := startSSHD(t)
	sshKeyring(t)
	t.Setenv("HOME", t.TempDir())
	u, err := user.Lookup("mcptray-nopw")
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)

	base, err := os.MkdirTemp("/tmp", "mcptray-edit-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	mk := func(p string, mode os.FileMode, owner, group int, content string) {
		t.Helper()
		var err error
		if content == "" {
			err = os.Mkdir(p, mode)
		} else {
			err = os.WriteFile(p, []byte(content), mode)
		}
		if err == nil {
			err = errors.Join(os.Chmod(p, mode), os.Chown(p, owner, group))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(base, 0o755)
	ro, own := filepath.Join(base, "ro"), filepath.Join(base, "own")
	mk(ro, 0o755, 0, 0, "")
	mk(own, 0o755, uid, gid, "")
	mk(filepath.Join(ro, "shared.conf"), 0o664, 0, gid, "a = 1\n")
	mk(filepath.Join(own, "root.conf"), 0o664, 0, gid, "b = 1\n")
	mk(filepath.Join(own, "mine.conf"), 0o640, uid, gid, "c = 1\n")
	mk(filepath.Join(own, "locked.conf"), 0o644, 0, 0, "d = 1\n")

	if code, _, errs := cli(t, "ssh", "alias", "add", "box", "--host", "127.0.0.1", "--port", strconv.Itoa(sshd.port),
		"--user", "mcptray-nopw", "--key", sshd.key, "--accept-new-host-key"); code != 0 {
		t.Fatalf("alias add: %s", errs)
	}
	exe, _ := os.Executable()
	in := startDaemon(t, map[string]any{
		"ssh": map[string]any{"command": exe, "args": []string{"serve", "ssh"}, "env": map[string]string{"GORACE": "atexit_sleep_ms=0"},
			"x-mcptray": map[string]any{"approve": "off"}},
	})
	in.WaitFor("ssh ready", states("ssh", "ready"))
	a := startAssistant(t, in, map[string]any{})
	type editOut struct {
		Path    string `json:"path"`
		InPlace bool   `json:"in_place"`
	}
	edit := func(p, old, new string) toolReply[editOut] {
		t.Helper()
		return parseToolReply[editOut](t, a.wait(a.call("ssh__edit_file", map[string]any{"alias": "box", "path": p, "old_string": old, "new_string": new})))
	}
	check := func(p string, mode os.FileMode, owner, group int, content string) *syscall.Stat_t {
		t.Helper()
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		sys := st.Sys().(*syscall.Stat_t)
		if b, _ := os.ReadFile(p); string(b) != content || st.Mode().Perm() != mode || int(sys.Uid) != owner || int(sys.Gid) != group {
			t.Errorf("%s: %q, mode %v, owner %d:%d; want %q, %v, %d:%d", p, b, st.Mode().Perm(), sys.Uid, sys.Gid, content, mode, owner, group)
		}
		return sys
	}

	mine := filepath.Join(own, "mine.conf")
	before := check(mine, 0o640, uid, gid, "c = 1\n").Ino
	if r := edit(mine, "c = 1", "c = 2"); r.Result.IsError || r.Result.Structured.InPlace {
		t.Errorf("the user's own file: %+v", r.Result)
	}
	if after := check(mine, 0o640, uid, gid, "c = 2\n").Ino; after == before {
		t.Error("the user's own file was written in place, not replaced atomically")
	}
	for p, want := range map[string]string{filepath.Join(ro, "shared.conf"): "a = 2\n", filepath.Join(own, "root.conf"): "b = 2\n"} {
		if r := edit(p, "= 1", "= 2"); r.Result.IsError || !r.Result.Structured.InPlace {
			t.Errorf("%s, root's and group-writable: %+v", p, r.Result)
		}
		check(p, 0o664, 0, gid, want)
	}
	locked := filepath.Join(own, "locked.conf")
	r := edit(locked, "d = 1", "d = 2")
	if !r.Result.IsError || !strings.Contains(r.Result.Content[0].Text, "writing "+locked+": permission denied; replacing it instead would change its owner") {
		t.Errorf("root's file the user may not write: %+v", r.Result)
	}
	check(locked, 0o644, 0, 0, "d = 1\n")
	for _, d := range []string{ro, own} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if strings.Contains(e.Name(), ".mcptray-") {
				t.Errorf("a temporary file is left: %s", filepath.Join(d, e.Name()))
			}
		}
	}
}
