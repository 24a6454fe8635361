package mcptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// Mode "leaker" is a careless server that echoes a password it was given
// on every channel a server has, in every way a JSON encoder may write it,
// for the redaction tests. It is a hand-written JSON-RPC server (like
// asker), so what it writes is exactly what mcptray reads.
//
//	login {}       asks for a password (elicitation, format "password")
//	               and keeps it
//	echo {}        with the password, in each of SecretForms: events (one
//	               per form, and one whose method holds it), notifications/
//	               message (data an object), a stderr line, resources/
//	               updated; then list_changed for tools, resources and
//	               prompts (whose descriptions now hold it), and a result
//	               of one text block per form plus the password split
//	               across two blocks
//	sample {}      sampling/createMessage with it in each form, then a
//	               result saying what the client answered
//	ask_echo {}    an elicitation without secret fields (so it may go to
//	               the assistant) whose message holds it
//	ask_again {}   an elicitation with a password field (so it goes to
//	               the inbox) whose message holds it
//
// Resources: leak://secret (contents hold it in each form, and split
// across two contents), leak://error (an error whose message and data
// hold it); a template leak://t/{x}. Prompt echo (messages hold it in each
// form, and split across two messages); completion values hold it in each
// form. Before login, each of these says "no secret yet".

// SecretForms are the ways the leaker writes secret inside a JSON string
// (without the quotes): as is, Go's (HTML characters escaped), \/ for /,
// non-ASCII as upper-case \uXXXX, every character as \uxxxx and as
// \uXXXX, and a mix of all of these.
func SecretForms(secret string) []string {
	plain, _ := json.Marshal(secret)
	p := strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(string(plain[1:len(plain)-1]), `\u0026`, "&"), `\u003c`, "<"), `\u003e`, ">")
	var slash, upper, lower, every, mixed strings.Builder
	for i, r := range p {
		ch := p[i : i+utf8.RuneLen(r)]
		units := utf16.Encode([]rune{r})
		esc := func(format string) string {
			var b strings.Builder
			for _, u := range units {
				fmt.Fprintf(&b, format, u)
			}
			return b.String()
		}
		switch {
		case r == '/':
			slash.WriteString(`\/`)
		default:
			slash.WriteString(ch)
		}
		if r >= utf8.RuneSelf {
			upper.WriteString(esc(`\u%04X`))
		} else {
			upper.WriteString(ch)
		}
		if r == '\\' || r == '"' { // already escaped in p: keep them so
			lower.WriteString(ch)
			every.WriteString(ch)
			mixed.WriteString(ch)
			continue
		}
		lower.WriteString(esc(`\u%04x`))
		every.WriteString(esc(`\u%04X`))
		switch i % 3 {
		case 0:
			mixed.WriteString(esc(`\u%04X`))
		case 1:
			mixed.WriteString(esc(`\u%04x`))
		default:
			if r == '/' {
				mixed.WriteString(`\/`)
			} else {
				mixed.WriteString(ch)
			}
		}
	}
	forms := []string{p, string(plain[1 : len(plain)-1]), slash.String(), upper.String(), lower.String(), every.String(), mixed.String()}
	var out []string
	for _, f := range forms {
		if !containsString(out, f) {
			out = append(out, f)
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// leaker is mode "leaker": an asker with other methods.
type leaker struct {
	*asker
	secretMu sync.Mutex
	secret   string // guarded by secretMu; "" before login
}

func runLeaker() int {
	l := &leaker{asker: &asker{out: bufio.NewWriter(os.Stdout), waits: map[string]chan json.RawMessage{}}}
	l.handler = l.handle
	return l.serve()
}

// forms are the secret's forms, or "no secret yet" before login.
func (l *leaker) forms() []string {
	l.secretMu.Lock()
	defer l.secretMu.Unlock()
	if l.secret == "" {
		return []string{"no secret yet"}
	}
	return SecretForms(l.secret)
}

// split is the secret's JSON form cut in two at a character boundary.
func (l *leaker) split() (string, string) {
	l.secretMu.Lock()
	s := l.secret
	l.secretMu.Unlock()
	if s == "" {
		s = "no secret yet"
	}
	cut := len(s) / 2
	for !utf8.RuneStart(s[cut]) {
		cut++
	}
	a, _ := json.Marshal(s[:cut])
	b, _ := json.Marshal(s[cut:])
	return string(a[1 : len(a)-1]), string(b[1 : len(b)-1])
}

// raw writes one line as it is.
func (l *leaker) raw(line string) {
	l.outMu.Lock()
	defer l.outMu.Unlock()
	l.out.WriteString(line)
	l.out.WriteByte('\n')
	l.out.Flush()
}

// replyRaw answers id with a result written by hand.
func (l *leaker) replyRaw(id json.RawMessage, result string) {
	l.raw(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`)
}

// textBlocks is a content array of one text block per form, then the
// split pair.
func (l *leaker) textBlocks(key string) string {
	var blocks []string
	for i, f := range l.forms() {
		blocks = append(blocks, fmt.Sprintf(`{"type":"text","%s":"form %d: %s."}`, key, i, f))
	}
	a, b := l.split()
	blocks = append(blocks, `{"type":"text","`+key+`":"split: `+a+`"}`, `{"type":"text","`+key+`":"`+b+` (end)"}`)
	return "[" + strings.Join(blocks, ",") + "]"
}

var leakerTools = []map[string]any{
	{"name": "login", "description": "Asks for a password and keeps it.", "inputSchema": map[string]any{"type": "object"}, "annotations": rawNotDestructive},
	{"name": "echo", "description": "Echoes the password everywhere.", "inputSchema": map[string]any{"type": "object"}, "annotations": rawNotDestructive},
	{"name": "sample", "description": "Asks the client to sample, with the password.", "inputSchema": map[string]any{"type": "object"}, "annotations": rawNotDestructive},
	{"name": "ask_echo", "description": "Asks a yes/no question that holds the password.", "inputSchema": map[string]any{"type": "object"}, "annotations": rawNotDestructive},
	{"name": "ask_again", "description": "Asks for a password with a message that holds the old one.", "inputSchema": map[string]any{"type": "object"}, "annotations": rawNotDestructive},
}

func (l *leaker) handle(m rpcMsg) {
	forms := l.forms()
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(m.Params, &p)
		l.reply(m.ID, map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities": map[string]any{"tools": map[string]any{"listChanged": true}, "prompts": map[string]any{"listChanged": true},
				"resources": map[string]any{"listChanged": true, "subscribe": true}, "completions": map[string]any{}, "logging": map[string]any{}},
			"serverInfo": map[string]any{"name": "fake-leaker", "version": "1.0.0"},
		})
	case "tools/list":
		var tools []string
		for _, t := range leakerTools {
			b, _ := json.Marshal(t)
			tools = append(tools, string(b))
		}
		tools = append(tools, `{"name":"about","description":"Knows `+forms[len(forms)-1]+`.","inputSchema":{"type":"object"}}`)
		l.replyRaw(m.ID, `{"tools":[`+strings.Join(tools, ",")+`]}`)
	case "resources/list":
		l.replyRaw(m.ID, `{"resources":[{"uri":"leak://secret","name":"secret","description":"holds `+forms[len(forms)-1]+`"},{"uri":"leak://error","name":"error"}]}`)
	case "resources/templates/list":
		l.replyRaw(m.ID, `{"resourceTemplates":[{"uriTemplate":"leak://t/{x}","name":"t","description":"holds `+forms[0]+`"}]}`)
	case "resources/read":
		var p struct {
			URI string `json:"uri"`
		}
		json.Unmarshal(m.Params, &p)
		if p.URI == "leak://error" {
			l.raw(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32603,"message":"wrong password ` + forms[len(forms)-1] + `","data":{"pw":"` + forms[0] + `"}}}`)
			return
		}
		uri, _ := json.Marshal(p.URI)
		contents := strings.ReplaceAll(l.textBlocks("text"), `"type":"text"`, `"uri":`+string(uri)+`,"mimeType":"text/plain"`)
		l.replyRaw(m.ID, `{"contents":`+contents+`}`)
	case "prompts/list":
		l.replyRaw(m.ID, `{"prompts":[{"name":"echo","description":"holds `+forms[len(forms)-1]+`","arguments":[{"name":"x"}]}]}`)
	case "prompts/get":
		var msgs []string
		for _, f := range forms {
			msgs = append(msgs, `{"role":"user","content":{"type":"text","text":"pw `+f+`"}}`)
		}
		a, b := l.split()
		msgs = append(msgs, `{"role":"user","content":{"type":"text","text":"split `+a+`"}}`, `{"role":"assistant","content":{"type":"text","text":"`+b+` end"}}`)
		l.replyRaw(m.ID, `{"description":"`+forms[0]+`","messages":[`+strings.Join(msgs, ",")+`]}`)
	case "completion/complete":
		l.replyRaw(m.ID, `{"completion":{"values":["`+strings.Join(forms, `","`)+`"],"total":`+fmt.Sprint(len(forms))+`}}`)
	case "resources/subscribe", "resources/unsubscribe", "logging/setLevel", "ping":
		l.reply(m.ID, map[string]any{})
	case "tools/call":
		var p struct {
			Name string `json:"name"`
		}
		json.Unmarshal(m.Params, &p)
		l.call(m.ID, p.Name, forms)
	default:
		l.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found: " + m.Method}})
	}
}

func (l *leaker) call(id json.RawMessage, tool string, forms []string) {
	switch tool {
	case "login":
		res := l.ask(map[string]any{"message": "Password for the vault", "requestedSchema": json.RawMessage(askerForms["password"])})
		var r struct {
			Action  string `json:"action"`
			Content struct {
				Password string `json:"password"`
			} `json:"content"`
		}
		json.Unmarshal(res, &r)
		l.secretMu.Lock()
		l.secret = r.Content.Password
		l.secretMu.Unlock()
		l.reply(id, toolText("login "+r.Action, r.Action != "accept"))
	case "echo":
		for i := len(forms) - 1; i >= 0; i-- { // the mixed form first: it makes the notification
			f := forms[i]
			l.raw(fmt.Sprintf(`{"jsonrpc":"2.0","method":"event/leak","params":{"title":"Login %s","body":"pw %s","n":%d,"nested":{"list":["%s"]}}}`, f, f, i, f))
		}
		l.raw(`{"jsonrpc":"2.0","method":"event/` + forms[len(forms)-1] + `","params":{"title":"in the method"}}`)
		l.raw(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"leaker","data":{"pw":"` + forms[1] + `","also":"` + forms[len(forms)-1] + `"}}}`)
		l.raw(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"pw ` + forms[2%len(forms)] + `"}}`)
		fmt.Fprintf(os.Stderr, `{"level":"info","msg":"pw %s"}`+"\n", forms[len(forms)-1])
		l.raw(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"leak://secret?pw=` + forms[len(forms)-1] + `"}}`)
		for _, what := range []string{"tools", "resources", "prompts"} {
			l.raw(`{"jsonrpc":"2.0","method":"notifications/` + what + `/list_changed"}`)
		}
		l.replyRaw(id, `{"content":`+l.textBlocks("text")+`,"isError":false}`)
	case "sample":
		var msgs []string
		for _, f := range forms {
			msgs = append(msgs, `{"role":"user","content":{"type":"text","text":"pw `+f+`"}}`)
		}
		res := l.askRaw("sampling/createMessage", `{"messages":[`+strings.Join(msgs, ",")+`],"systemPrompt":"pw `+forms[len(forms)-1]+`","maxTokens":10}`)
		l.reply(id, toolText("sampled: "+string(res), false))
	case "ask_echo":
		res := l.ask(map[string]any{"message": "Is " + l.plainSecret() + " right?", "requestedSchema": json.RawMessage(askerForms["confirm"])})
		l.reply(id, toolText("got "+string(res), false))
	case "ask_again":
		res := l.ask(map[string]any{"message": "The old password " + l.plainSecret() + " expired; a new one?", "requestedSchema": json.RawMessage(askerForms["password"])})
		var r struct {
			Action string `json:"action"`
		}
		json.Unmarshal(res, &r)
		l.reply(id, toolText("ask_again "+r.Action, false))
	default:
		l.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32602, "message": "unknown tool " + tool}})
	}
}

func (l *leaker) plainSecret() string {
	l.secretMu.Lock()
	defer l.secretMu.Unlock()
	return l.secret
}

// askRaw sends a request to the client with params written by hand and
// waits for its answer.
func (l *leaker) askRaw(method, params string) json.RawMessage {
	id := fmt.Sprintf(`"leak-%d"`, l.next.Add(1))
	ch := make(chan json.RawMessage, 1)
	l.mu.Lock()
	l.waits[id] = ch
	l.mu.Unlock()
	l.raw(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`)
	return <-ch
}
