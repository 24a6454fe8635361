//go:build unix

package ssh

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The sudo password is asked once, goes to sudo as the first stdin line
// (the command still gets its own stdin), is cached, and a wrong one is
// reported, dropped and asked again. Both ways of asking: input-required
// results (protocol 2026-07-28) and elicitation/create during the call
// (older clients, mcptray's gateway).
func TestSudoPrompt(t *testing.T) {
	t.Parallel()
	for _, proto := range []string{"", "2025-11-25"} {
		t.Run("protocol="+proto, func(t *testing.T) {
			const pw = "sudo-secret-91c2"
			ts := startServer(t, withSudoPassword(pw))
			e := newEnv(t, withProtocol(proto))
			e.keyAlias("box", ts)

			e.asks.push(answer{value: pw})
			var out execOut
			e.ok("exec", map[string]any{"alias": "box", "command": "echo $FAKE_SUDO_USER; cat", "sudo": true, "stdin": "data line\n"}, &out)
			if out.Stdout != "root\ndata line\n" || out.ExitCode != 0 {
				t.Fatalf("sudo exec = %+v", out)
			}
			if strings.Contains(out.Stdout+out.Stderr, pw) {
				t.Fatalf("the password reached the output: %+v", out)
			}
			if m := e.asks.last().Message; !strings.Contains(m, `SSH alias "box"`) || !strings.Contains(m, "sudo password of tester, to run a command as root") {
				t.Errorf("message: %q", m)
			}

			// Within the TTL: not asked again.
			e.ok("exec", map[string]any{"alias": "box", "command": "echo $FAKE_SUDO_USER", "sudo_user": "postgres"}, &out)
			if out.Stdout != "postgres\n" || len(e.asks.asked()) != 1 {
				t.Errorf("second call: %+v, asked %d times", out, len(e.asks.asked()))
			}

			// A wrong password: reported, nothing ran, asked again next time.
			// With stdin, too: sudo must not wait for a second try.
			e.clock.advance(DefaultSecretTTL + time.Second)
			e.asks.push(answer{value: "wrong"})
			start := time.Now()
			msg := e.fail("exec", map[string]any{"alias": "box", "command": "touch ran", "sudo": true, "stdin": "x\ny\n"})
			if !strings.Contains(msg, "the sudo password for alias box (tester) was wrong; nothing ran. The next call asks for it again") {
				t.Errorf("wrong password: %s", msg)
			}
			if time.Since(start) > 20*time.Second {
				t.Errorf("a wrong password took %s", time.Since(start))
			}
			e.asks.push(answer{value: pw})
			e.ok("exec", map[string]any{"alias": "box", "command": "echo again", "sudo": true}, &out)
			if n := len(e.asks.asked()); n != 3 {
				t.Errorf("asked %d times, want 3", n)
			}
			// sudo refusing after a right password, with stdin waiting: no hang,
			// sudo's reason, and the password stays cached.
			msg = e.fail("exec", map[string]any{"alias": "box", "command": "true", "sudo_user": "forbidden", "stdin": "x\n"})
			if !strings.Contains(msg, "sudo on alias box refused: Sorry, user") || !strings.Contains(msg, "is not allowed to execute") {
				t.Errorf("refused: %s", msg)
			}
			if n := len(e.asks.asked()); n != 3 {
				t.Errorf("asked %d times after a refusal, want 3", n)
			}
			for _, c := range ts.sudoCalls() {
				if strings.Contains(c, pw) {
					t.Errorf("the password is in sudo's arguments: %s", c)
				}
			}
		})
	}
}

func TestSudoModes(t *testing.T) {
	t.Parallel()
	ts := startServer(t) // the fake sudo needs no password
	e := newEnv(t)
	e.keyAlias("nopw", ts, func(a *Alias) { a.Sudo = SudoNoPasswd })
	e.keyAlias("prompt", ts)
	e.keyAlias("nosudo", ts, func(a *Alias) { a.Sudo = SudoNone })

	var out execOut
	e.ok("exec", map[string]any{"alias": "nopw", "command": "echo $FAKE_SUDO_USER", "sudo": true}, &out)
	if out.Stdout != "root\n" {
		t.Errorf("nopasswd: %+v", out)
	}
	// prompt, but sudo -n true works: no password asked, sudo -n used.
	e.ok("exec", map[string]any{"alias": "prompt", "command": "echo $FAKE_SUDO_USER", "sudo": true}, &out)
	if out.Stdout != "root\n" || len(e.asks.asked()) != 0 {
		t.Errorf("prompt without a password needed: %+v, asked %v", out, e.asks.asked())
	}
	calls := ts.sudoCalls()
	if slices.ContainsFunc(calls, func(c string) bool { return strings.Contains(c, "S=1") }) {
		t.Errorf("sudo -S used though no password was needed: %v", calls)
	}
	msg := e.fail("exec", map[string]any{"alias": "nosudo", "command": "id", "sudo": true})
	if !strings.Contains(msg, "alias nosudo does not allow sudo (its sudo mode is none)") {
		t.Errorf("none: %s", msg)
	}
}

func TestRemoteCommandKeepsPasswordOut(t *testing.T) {
	t.Parallel()
	cmd := remoteCommand("id -u", "/tmp", &sudoRun{password: "hunter2", user: "postgres"})
	if strings.Contains(cmd, "hunter2") {
		t.Fatalf("the password is in the command line: %s", cmd)
	}
	if !strings.Contains(cmd, "sudo -k -S -p ") || !strings.Contains(cmd, "-u ") {
		t.Errorf("command line: %s", cmd)
	}
}
