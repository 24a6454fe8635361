//go:build linux

package cli

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/internal/testdaemon"
)

// The ${keyring:NAME} secrets run on the real keyring: these tests skip
// without one, and fail without one inside scripts/desktop-session.sh.

// secretName is a name of the test's own; its entry and the index of
// names are put back as they were afterwards.
func secretName(t *testing.T, what string) string {
	t.Helper()
	name := fmt.Sprintf("test-%s-%d-%d", what, os.Getpid(), time.Now().UnixNano())
	testdaemon.Keyring(t, "keyring/"+name)
	testdaemon.Keyring(t, "keyring-index")
	return name
}

// secretValue is a value no output could hold by chance.
func secretValue(t *testing.T) string {
	b := make([]byte, 12)
	rand.Read(b)
	return "s3cret-" + hex.EncodeToString(b)
}

// runStdin runs mcptray in a subprocess with stdin (not a terminal).
func runStdin(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// secretLeaks fails the test, without showing the value, if any of texts holds
// it.
func secretLeaks(t *testing.T, value, where string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(s, value) {
			t.Errorf("the secret's value is in %s", where)
		}
	}
}

// Without a running instance: set from stdin, list (names only, with one
// another tool stored), remove, and the errors a person sees.
func TestSecretCLIWithoutAnInstance(t *testing.T) {
	name, other := secretName(t, "offline"), secretName(t, "secrettool")
	value, otherValue := secretValue(t), secretValue(t)
	data := filepath.Join(t.TempDir(), "data")
	flags := []string{"--data", data}
	var outputs []string
	run := func(stdin string, args ...string) (int, string, string) {
		code, out, errs := runStdin(t, stdin, append(args, flags...)...)
		outputs = append(outputs, out, errs)
		return code, out, errs
	}

	code, out, errs := run(value+"\n", "secret", "set", name)
	if want := fmt.Sprintf("stored ${keyring:%s} (mcptray is not running: servers get it when they start)\n", name); code != 0 || out != want || errs != "" {
		t.Fatalf("secret set: exit %d, stdout %q, stderr %q; want 0, %q", code, out, errs, want)
	}
	if got, err := keyring.Get("keyring/" + name); err != nil || got != value {
		t.Fatalf("the keyring entry keyring/%s: %v (the value read back differs: %t)", name, err, got != value)
	}
	// The index of names, for the keyrings that cannot be searched.
	raw, err := keyring.Get("keyring-index")
	var index []string
	if err != nil || json.Unmarshal([]byte(raw), &index) != nil || !slices.Contains(index, name) {
		t.Errorf("keyring-index: %v %q, want a JSON list with %s", err, raw, name)
	}
	secretLeaks(t, value, "the index", raw)

	// An entry stored by another tool, with the attributes the README
	// names, is found too (the Secret Service is searched).
	if st, err := exec.LookPath("secret-tool"); err == nil {
		cmd := exec.Command(st, "store", "--label=test", "service", "mcptray", "username", "keyring/"+other)
		cmd.Stdin = strings.NewReader(otherValue)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("secret-tool store: %v %s", err, b)
		}
	} else if os.Getenv("MCPTRAY_TEST_SESSION") == "1" {
		t.Fatalf("secret-tool is missing from the test session: %v", err)
	} else {
		other = ""
	}

	code, out, _ = run("", "secret", "list")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || !slices.Contains(lines, name) || other != "" && !slices.Contains(lines, other) {
		t.Errorf("secret list: exit %d:\n%s", code, out)
	}
	code, out, _ = run("", "secret", "list", "--json")
	var l struct{ Names []string }
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil || !slices.Contains(l.Names, name) {
		t.Errorf("secret list --json: exit %d:\n%s", code, out)
	}

	// No value, a bad name.
	if code, out, errs := run("", "secret", "set", name); code != 1 || out != "" ||
		errs != "mcptray: no value given: nothing stored (type it at the prompt, or pipe it on stdin)\n" {
		t.Errorf("secret set with nothing on stdin: exit %d, %q %q", code, out, errs)
	}
	if got, _ := keyring.Get("keyring/" + name); got != value {
		t.Error("an empty stdin changed the stored value")
	}

	code, out, errs = run("", "secret", "remove", name)
	if want := fmt.Sprintf("removed ${keyring:%s}\n", name); code != 0 || out != want {
		t.Errorf("secret remove: exit %d, %q %q; want %q", code, out, errs, want)
	}
	if _, err := keyring.Get("keyring/" + name); err == nil {
		t.Error("the entry is still in the keyring after remove")
	}
	if _, out, _ := run("", "secret", "list"); slices.Contains(strings.Split(out, "\n"), name) {
		t.Errorf("secret list after remove:\n%s", out)
	}
	code, _, errs = run("", "secret", "remove", name)
	if want := fmt.Sprintf("mcptray: no such secret: there is no ${keyring:%s} in the keyring\n", name); code != 1 || errs != want {
		t.Errorf("second remove: exit %d, %q; want 1, %q", code, errs, want)
	}
	for _, out := range outputs {
		secretLeaks(t, value, "a command's output", out)
		secretLeaks(t, otherValue, "a command's output", out)
	}
	secretLeaks(t, value, "the data dir", dirText(t, data))
}

// dirText is every file under dir, for searching.
func dirText(t *testing.T, dir string) string {
	var b bytes.Buffer
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			data, _ := os.ReadFile(path)
			b.Write(data)
		}
		return nil
	})
	return b.String()
}

// envOf is the value of key in process pid's environment.
func envOf(pid int, key string) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	for _, kv := range bytes.Split(b, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok && k == key {
			return v
		}
	}
	return ""
}

// With a running instance: an entry refused for want of ${keyring:NAME}
// starts once `secret set NAME` (typed on a terminal, without echo)
// stored it; `restart` resolves the entry again, so a value changed
// behind mcptray's back is used; a set from stdin restarts the entry with
// the new value; remove refuses it again. No value reaches an output, the
// log, the data dir (database and server logs) or an argv.
func TestSecretSetStartsTheEntryWaitingForIt(t *testing.T) {
	name := secretName(t, "daemon")
	typed, behind, piped := secretValue(t), secretValue(t), secretValue(t)
	in := startDaemon(t, map[string]any{"notes": fakeEntry(t, "echo", "NOTES_KEY", "${keyring:"+name+"}")})
	notFound := fmt.Sprintf("notes: keyring entry %q not found (`mcptray secret set %s` stores it)", name, name)
	in.WaitFor("notes refused", func(st statusJSON) bool {
		s, _ := state(st, "notes")
		return s == "error" && len(st.Servers) == 1 && st.Servers[0].Error == notFound
	})
	var outputs []string

	cmd, master, screen, done := runOnPTY(t, in, "secret", "set", name)
	prompt := fmt.Sprintf("value of ${keyring:%s} (not shown): ", name)
	waitFor(t, "the masked prompt", func() bool { return strings.Contains(screen.String(), prompt) && echoOff(master) })
	master.Write([]byte(typed + "\n"))
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("secret set on a terminal: %v", err)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("secret set on a terminal did not finish")
	}
	outputs = append(outputs, screen.String())
	if want := fmt.Sprintf("stored ${keyring:%s}; the servers using it restart with it", name); !strings.Contains(screen.String(), want) {
		t.Errorf("the terminal does not say %q", want)
	}

	st := in.WaitFor("notes started", states("notes", "ready"))
	_, pid := state(st, "notes")
	if envOf(pid, "NOTES_KEY") != typed {
		t.Fatal("the server's NOTES_KEY is not the value typed")
	}

	// Changed behind mcptray's back (as secret-tool would): a restart
	// resolves the entry again.
	if err := keyring.Set("keyring/"+name, behind); err != nil {
		t.Fatal(err)
	}
	code, out, errs := in.Run("restart", "notes")
	if code != 0 || out != "notes restarting\n" {
		t.Fatalf("restart: exit %d %q %q", code, out, errs)
	}
	st = in.WaitFor("notes restarted", func(st statusJSON) bool { s, p := state(st, "notes"); return s == "ready" && p != pid })
	_, pid = state(st, "notes")
	if envOf(pid, "NOTES_KEY") != behind {
		t.Error("after restart, the server's NOTES_KEY is not the keyring's new value")
	}

	// Set from stdin through the instance: the server restarts with it.
	code, out, errs = in.runCLI(piped+"\n", "secret", "set", name)
	outputs = append(outputs, out, errs)
	if code != 0 {
		t.Fatalf("secret set from stdin: exit %d %q", code, errs)
	}
	st = in.WaitFor("notes restarted with the piped value", func(st statusJSON) bool { s, p := state(st, "notes"); return s == "ready" && p != pid })
	_, pid = state(st, "notes")
	if envOf(pid, "NOTES_KEY") != piped {
		t.Error("after secret set, the server's NOTES_KEY is not the value piped")
	}
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	outputs = append(outputs, string(cmdline))

	code, out, _ = in.Run("secret", "list")
	outputs = append(outputs, out)
	if code != 0 || !slices.Contains(strings.Split(out, "\n"), name) {
		t.Errorf("secret list through the instance: exit %d:\n%s", code, out)
	}
	code, out, _ = in.Run("secret", "remove", name)
	if code != 0 || out != fmt.Sprintf("removed ${keyring:%s}\n", name) {
		t.Errorf("secret remove through the instance: exit %d %q", code, out)
	}
	in.WaitFor("notes refused again", func(st statusJSON) bool {
		s, _ := state(st, "notes")
		return s == "error" && st.Servers[0].Error == notFound
	})
	_, statusOut, _ := in.Run("status", "--json")
	outputs = append(outputs, statusOut)
	_, logs, _ := in.Run("logs", "notes")
	outputs = append(outputs, logs)

	stopInstance(t, in)
	for _, v := range []string{typed, behind, piped} {
		for _, out := range outputs {
			secretLeaks(t, v, "a command's output or an argv", out)
		}
		secretLeaks(t, v, "mcptray's log", in.Stderr.String())
		secretLeaks(t, v, "the data dir", dirText(t, in.Data))
	}
}
