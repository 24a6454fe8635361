package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
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
	cmd := exec.Command("scripts/sshd-test.sh", filepath.Join(dir, "sshd"), strconv.Itoa(s.port))
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

// execResult is ssh__exec's structured result as the assistant gets it.
type execResult struct {
	Result struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		Structured struct {
			ExitCode int    `json:"exit_code"`
			Stdout   string `json:"stdout"`
			Stderr   string `json:"stderr"`
		} `json:"structuredContent"`
	} `json:"result"`
}

func parseExec(t *testing.T, line string) execResult {
	t.Helper()
	var r execResult
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("reply: %v\n%s", err, line)
	}
	return r
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
		"ssh": map[string]any{"command": exe, "args": []string{"serve", "ssh"}, "env": map[string]string{"GORACE": "atexit_sleep_ms=0"}},
	})
	in.waitFor("ssh ready", states("ssh", "ready"))
	a := startAssistant(t, in, map[string]any{})

	answer := func(value, wantMsg string) {
		t.Helper()
		l, raw := in.waitRequest("ssh")
		r := l.Requests[0]
		if !strings.Contains(r.Message, wantMsg) || len(r.Fields) != 1 || r.Fields[0].Name != "password" || !r.Fields[0].Secret {
			t.Fatalf("inbox request: %s", raw)
		}
		if code, _, errs := in.run("inbox", "answer", r.ID, "--field", "password="+value); code != 0 {
			t.Fatalf("inbox answer: %s", errs)
		}
	}
	noRequests := func() {
		t.Helper()
		if _, out, _ := in.run("inbox", "--json"); strings.Contains(out, `"server": "ssh"`) || strings.Contains(out, `"server":"ssh"`) {
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
		"mcpServers": map[string]any{"ssh": map[string]any{"command": exe, "args": []string{"serve", "ssh"}, "env": map[string]string{"GORACE": "atexit_sleep_ms=0"}}},
		"x-mcptray":  map[string]any{"ssh": map[string]any{"localRoots": []string{dl}}},
	})
	if err := os.WriteFile(in.config+".tmp", cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(in.config+".tmp", in.config); err != nil {
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
	in.cmd.Process.Signal(syscall.SIGTERM)
	<-in.exited
	for where, text := range map[string]string{"mcptray's log": in.stderr.String(), "the upstream bytes": a.out.String()} {
		if strings.Contains(text, sshd.password) {
			t.Errorf("the password is in %s", where)
		}
	}
	noSecretIn(t, in.data, sshd.password)
	if b, _ := os.ReadFile(filepath.Join(in.data, "logs", "ssh.log")); !bytes.Contains(b, []byte("exec")) {
		t.Errorf("the ssh server's log is empty:\n%s", b)
	}
}
