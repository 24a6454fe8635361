//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/mcptest"
)

// leakedSecret is the password the leaker fake is given: a '/', non-ASCII,
// an astral character and HTML characters, so that every escape a JSON
// encoder may write is tried.
const leakedSecret = "Tr0ub/4dör&😀-horse<x>"

// secretSpellings are the secret as typed and as the leaker writes it.
func secretSpellings() []string {
	return append(mcptest.SecretForms(leakedSecret), leakedSecret)
}

// leaks reports whether b holds the secret: spelled in any of the
// leaker's ways, or, decoded, in any JSON string of a line, or in the
// joined text of adjacent blocks of an array.
func leaks(b []byte) bool {
	for _, f := range secretSpellings() {
		if strings.Contains(string(b), f) {
			return true
		}
	}
	for _, line := range strings.Split(string(b), "\n") {
		var v any
		if json.Unmarshal([]byte(line), &v) == nil && strings.Contains(decodedText(v), leakedSecret) {
			return true
		}
	}
	return false
}

// decodedText is every string of v, and for each array the joined text
// of its elements' "text" (or "content"."text"), one per line.
func decodedText(v any) string {
	var sb strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			sb.WriteString(v + "\n")
		case []any:
			var joined strings.Builder
			for _, x := range v {
				m, _ := x.(map[string]any)
				if c, ok := m["content"].(map[string]any); ok {
					m = c
				}
				if s, ok := m["text"].(string); ok {
					joined.WriteString(s)
				}
				walk(x)
			}
			sb.WriteString(joined.String() + "\n")
		case map[string]any:
			for k, x := range v {
				sb.WriteString(k + "\n")
				walk(x)
			}
		}
	}
	walk(v)
	return sb.String()
}

// masked is s with the secret shown as ‹secret›, so that a failure does
// not print it.
func masked(s string) string {
	for _, f := range secretSpellings() {
		s = strings.ReplaceAll(s, f, "‹secret›")
	}
	if len(s) > 3000 {
		s = s[:3000] + "…"
	}
	return s
}

// request waits for a request from mcptray to the assistant with method,
// and returns its raw id and the whole line.
func (a *assistant) request(method string) (json.RawMessage, string) {
	a.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-a.lines:
			if !ok {
				a.t.Fatalf("mcptray connect ended before %s", method)
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal([]byte(line), &m) == nil && m.Method == method && m.ID != nil {
				return m.ID, line
			}
		case <-deadline:
			a.t.Fatalf("no %s within 60s; the assistant got:\n%s", method, masked(a.out.String()))
		}
	}
}

// answer sends the assistant's result for a request from mcptray.
func (a *assistant) answer(id json.RawMessage, result any) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	a.in.Write(append(b, '\n'))
}

// Issue 17 item 3: a server that echoes a password typed in the inbox, on
// every channel a server has and in every JSON spelling (\/, upper-case
// \u00F6, every character escaped, mixes; split across two text blocks),
// leaks it to nothing: not to the assistant (tool results, events through
// mcptray__events, resources, templates, prompts, completions, sampling
// and elicitation requests, lists, errors, logs, resource updates), not to
// `mcptray events --json` or `inbox --json`, not to mcptray.db (with its
// WAL) or any log. The server itself got the password and keeps working.
func TestSecretEchoedOnEveryChannel(t *testing.T) {
	leak := fakeEntry(t, "leaker")
	leak["x-mcptray"] = map[string]any{"pinTools": false} // its tool "about" changes its description: not held back here
	in := startDaemon(t, map[string]any{"leak": leak})
	in.WaitFor("ready", states("leak", "ready"))
	a := startAssistant(t, in, map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{"form": map[string]any{}}})

	login := a.call("leak__login", map[string]any{})
	l, _ := in.waitRequest("leak")
	if code, out, errs := in.runCLI(leakedSecret+"\n", "inbox", "answer", l.Requests[0].ID, "--field", "password=-"); code != 0 {
		t.Fatalf("inbox answer: exit %d %q %q", code, out, masked(errs))
	}
	if res := a.wait(login); !strings.Contains(res, "login accept") {
		t.Fatalf("login: %s", masked(res))
	}

	check := func(what string, b string) {
		t.Helper()
		if leaks([]byte(b)) {
			t.Errorf("%s holds the secret: %s", what, masked(b))
		} else if !strings.Contains(b, "[redacted]") {
			t.Errorf("%s: nothing redacted: %s", what, masked(b))
		}
	}
	rpc := func(method string, params any) string {
		t.Helper()
		return a.wait(a.send(method, params))
	}

	res := a.wait(a.call("leak__echo", map[string]any{}))
	check("echo's result", res)
	if !strings.Contains(res, `"split: [redacted]"},{"type":"text","text":"[redacted] (end)"}`) {
		t.Errorf("the split secret: %s", masked(res))
	}
	forms := mcptest.SecretForms(leakedSecret)
	waitFor(t, "the events", func() bool { return len(in.events().Events) == len(forms)+1 })
	_, evs, _ := in.Run("events", "--json")
	check("events --json", evs)
	check("mcptray__events", a.wait(a.call("mcptray__events", map[string]any{"server": "leak"})))

	// The lists change after echo: wait until they did.
	changed := func(method, key string) string {
		var got string
		waitFor(t, method+" after list_changed", func() bool {
			got = rpc(method, map[string]any{})
			return strings.Contains(got, key) && !strings.Contains(got, "no secret yet")
		})
		return got
	}
	check("tools/list", changed("tools/list", "leak__about"))
	check("resources/list", changed("resources/list", "leak://secret"))
	check("prompts/list", changed("prompts/list", "leak__echo"))
	check("resources/templates/list", rpc("resources/templates/list", map[string]any{}))
	res = rpc("resources/read", map[string]any{"uri": "leak://secret"})
	check("resources/read", res)
	if !strings.Contains(res, `"text":"split: [redacted]"},{"uri":"leak://secret","mimeType":"text/plain","text":"[redacted] (end)"}`) {
		t.Errorf("the split secret in resource contents: %s", masked(res))
	}
	check("resources/read error", rpc("resources/read", map[string]any{"uri": "leak://error"}))
	check("prompts/get", rpc("prompts/get", map[string]any{"name": "leak__echo", "arguments": map[string]any{"x": "1"}}))
	check("completion/complete", rpc("completion/complete", map[string]any{
		"ref": map[string]any{"type": "ref/prompt", "name": "leak__echo"}, "argument": map[string]any{"name": "x", "value": ""}}))

	// Requests from the server to the assistant.
	call := a.call("leak__sample", map[string]any{})
	id, req := a.request("sampling/createMessage")
	check("sampling/createMessage", req)
	a.answer(id, map[string]any{"role": "assistant", "model": "m", "content": map[string]any{"type": "text", "text": "ok"}})
	if res := a.wait(call); !strings.Contains(res, "sampled") {
		t.Errorf("sample: %s", masked(res))
	}
	call = a.call("leak__ask_echo", map[string]any{})
	id, req = a.request("elicitation/create")
	check("elicitation/create", req)
	a.answer(id, map[string]any{"action": "accept", "content": map[string]any{}})
	if res := a.wait(call); !strings.Contains(res, "got") {
		t.Errorf("ask_echo: %s", masked(res))
	}
	check("what the assistant received", a.out.String())

	// An inbox request whose message echoes the old password.
	call = a.call("leak__ask_again", map[string]any{})
	again, raw := in.waitRequest("leak")
	check("inbox --json", raw)
	if code, _, errs := in.Run("inbox", "answer", again.Requests[0].ID, "--cancel"); code != 0 {
		t.Errorf("inbox answer --cancel: exit %d %s", code, errs)
	}
	if res := a.wait(call); !strings.Contains(res, "ask_again cancel") {
		t.Errorf("ask_again: %s", masked(res))
	}

	// On disk: the database with its WAL while mcptray runs, then every
	// file under DATA once it stopped.
	for _, name := range []string{"mcptray.db", "mcptray.db-wal", "mcptray.db-shm", filepath.Join("logs", "leak.log")} {
		if b, err := os.ReadFile(filepath.Join(in.Data, name)); err == nil && leaks(b) {
			t.Errorf("the secret is in %s", name)
		}
	}
	if st := in.Status(); len(st.Servers) != 1 || st.Servers[0].State != "ready" {
		t.Errorf("status: %+v", st)
	}
	in.Cmd.Process.Signal(syscall.SIGTERM)
	<-in.Exited
	if leaks([]byte(in.Stderr.String())) {
		t.Error("the secret is in mcptray's own log")
	}
	for _, f := range secretSpellings() {
		noSecretIn(t, in.Data, f)
	}
}
