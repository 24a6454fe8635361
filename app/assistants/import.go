package assistants

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/mcptray/mcptray/app/config"
)

// Server is one server of an assistant's config, in mcptray's terms.
type Server struct {
	Name string // its name in the assistant's config
	// Project is, for Claude Code's per-project entries, the project's
	// folder (which becomes the server's cwd unless it has one); "" for
	// the user's own list.
	Project string
	Type    string // config.TypeStdio or config.TypeHTTP
	Command string
	Args    []string
	Env     []KV // in file order
	EnvFile string
	Cwd     string
	URL     string
	Headers []KV
	// OAuth is an HTTP server's pre-registered OAuth client ("oauth":
	// {"clientId", "clientSecret", "scopes", "callbackPort"}); nil for none.
	OAuth    *OAuth
	Disabled bool
	// where is the server's place in the assistant's file: its JSON path,
	// or for Codex its name under mcp_servers.
	where []string
}

// KV is one variable or header.
type KV struct{ Key, Value string }

// Imported is a server of the assistant's config on its way into mcp.json.
type Imported struct {
	Server
	As   string // its name in mcp.json: Name, or Name-2, Name-3… when Name is taken there
	Skip string // why it is not copied ("" when it is): already in mcp.json
}

// Import is one `mcptray import CLIENT`: the servers read, their secrets
// with the caller's choices, and what it would write.
type Import struct {
	Client  *Client
	From    string // the assistant's file
	Config  string // mcp.json
	Servers []*Imported
	// Secrets are the literal values that look like secrets, each with the
	// caller's choice (Move); all kept as they are until it says so.
	Secrets []*Secret
	// Notes say what else a person should know: an entry that could not
	// be read, an input mcp.json has already. (A server renamed on a clash
	// has As != Name; one already in mcp.json, its Skip.)
	Notes []string

	self          string
	inputs        []json.RawMessage // VS Code inputs to add to mcp.json
	clientBefore  []byte
	configBefore  []byte
	configExisted bool
}

// NewImport reads the servers of client c (its file found with e) and
// plans their copy into the mcp.json at configPath (created with
// config.Default when missing). Names taken in mcp.json get a suffix (-2,
// -3…); a server already there under its name with the same command line
// or URL is skipped; mcptray's own entry is never imported.
func NewImport(c *Client, e Env, configPath string) (*Import, error) {
	from, err := c.Path(e)
	if err != nil {
		return nil, err
	}
	data, existed, err := readFile(from)
	if err != nil {
		return nil, err
	}
	if !existed {
		return nil, fmt.Errorf("%s has no config at %s", c.Display, from)
	}
	im := &Import{Client: c, From: from, Config: configPath, self: e.Self, clientBefore: data}
	servers, inputs, notes, err := readServers(c, from, data)
	if err != nil {
		return nil, err
	}
	im.Notes = notes
	im.configBefore, im.configExisted, err = readFile(configPath)
	if err != nil {
		return nil, err
	}
	base := im.configBase()
	existing := map[string]json.RawMessage{}
	for _, section := range []string{"mcpServers", "servers"} {
		ms, err := config.Members(base, []string{section})
		if err != nil {
			return nil, fileError(configPath, err)
		}
		for _, m := range ms {
			existing[m.Key] = m.Value
		}
	}
	taken := func(name string) bool {
		if _, ok := existing[name]; ok {
			return true
		}
		return slices.ContainsFunc(im.Servers, func(s *Imported) bool { return s.As == name && s.Skip == "" })
	}
	for _, s := range servers {
		if s.Name == EntryName || (s.Command == e.Self && len(s.Args) > 0 && s.Args[0] == "connect") {
			continue // mcptray itself
		}
		imp := &Imported{Server: s, As: s.Name}
		if old, ok := existing[s.Name]; ok && sameServer(old, s) {
			imp.Skip = "already in mcp.json"
			im.Servers = append(im.Servers, imp)
			continue
		}
		for n := 2; taken(imp.As); n++ {
			imp.As = s.Name + "-" + strconv.Itoa(n)
		}
		im.Servers = append(im.Servers, imp)
		im.Secrets = append(im.Secrets, secretsOf(imp)...)
	}
	// VS Code's inputs, unless mcp.json has one with that id.
	have := map[string]bool{}
	if v, found, _ := config.Lookup(base, []string{"inputs"}); found {
		var ins []struct{ ID string }
		json.Unmarshal(v, &ins)
		for _, in := range ins {
			have[in.ID] = true
		}
	}
	for _, in := range inputs {
		var x struct{ ID string }
		json.Unmarshal(in, &x)
		if have[x.ID] {
			im.Notes = append(im.Notes, fmt.Sprintf("input %s: mcp.json has one with this id; kept it", x.ID))
			continue
		}
		have[x.ID] = true
		im.inputs = append(im.inputs, in)
	}
	return im, nil
}

// maxSecretName is the longest keyring NAME (config.CheckSecretName's bound).
const maxSecretName = 200

// AvoidSecretNames renames each secret whose keyring NAME is taken, so
// that moving a value never overwrites another: a name taken says so (the
// keyring has an entry by that name: the caller knows), that mcp.json
// refers to as ${keyring:NAME}, or that a secret before it in this import
// has. The new name has the first free suffix (-2, -3…), and a note says
// so.
func (im *Import) AvoidSecretNames(taken func(name string) bool) {
	config := im.configBase()
	used := map[string]bool{}
	clash := func(name string) bool {
		return used[name] || bytes.Contains(config, []byte("${keyring:"+name+"}")) || (taken != nil && taken(name))
	}
	for _, s := range im.Secrets {
		base := s.Name
		for n := 2; clash(s.Name); n++ {
			suffix := "-" + strconv.Itoa(n)
			s.Name = base[:min(len(base), maxSecretName-len(suffix))] + suffix
		}
		used[s.Name] = true
		if s.Name != base {
			im.Notes = append(im.Notes, fmt.Sprintf("%s %s %s: ${keyring:%s} exists already, so it moves to ${keyring:%s}", s.Server, s.Field, s.Key, base, s.Name))
		}
	}
}

// from says where a server comes from when that is not plain: " (project
// /path)" for Claude Code's per-project entries.
func (s Server) from() string {
	if s.Project == "" {
		return ""
	}
	return " (project " + s.Project + ")"
}

// configBase is mcp.json's bytes, or the first-run file when there is none.
func (im *Import) configBase() []byte {
	if !im.configExisted || len(bytes.TrimSpace(im.configBefore)) == 0 {
		return config.Default()
	}
	return im.configBefore
}

// sameServer reports whether the mcp.json entry old runs what s runs:
// the same command and arguments, or the same URL.
func sameServer(old json.RawMessage, s Server) bool {
	var e struct {
		Command string
		Args    []string
		URL     string
	}
	if json.Unmarshal(old, &e) != nil {
		return false
	}
	if s.Type == config.TypeHTTP {
		return e.URL != "" && e.URL == s.URL
	}
	return e.Command == s.Command && slices.Equal(e.Args, s.Args)
}

// secretsOf finds the secrets of an imported server.
func secretsOf(imp *Imported) []*Secret {
	var out []*Secret
	for _, f := range []struct {
		field string
		kvs   []KV
	}{{"env", imp.Env}, {"headers", imp.Headers}} {
		for _, kv := range f.kvs {
			if !IsSecretKey(kv.Key) {
				continue
			}
			scheme, value := "", kv.Value
			if f.field == "headers" {
				scheme, value = authScheme(value)
			}
			if !literalSecret(value) {
				continue
			}
			out = append(out, &Secret{Server: imp.As, Field: f.field, Key: kv.Key, Name: keyringName(imp.As, kv.Key), Scheme: scheme, value: value})
		}
	}
	if o := imp.OAuth; o != nil && o.ClientSecret != "" && !config.IsKeyringRef(o.ClientSecret) {
		// mcp.json takes an OAuth client secret from the keyring only.
		out = append(out, &Secret{Server: imp.As, Field: "oauth", Key: "clientSecret", Name: keyringName(imp.As, "oauth-client-secret"), Required: true, Move: true, value: o.ClientSecret})
	}
	return out
}

// Plans computes the edits with the choices made so far: mcp.json with
// the servers (and VS Code inputs) added, and, when replace is set, the
// assistant's file with the imported servers taken out and mcptray's
// entry put in (nil otherwise). Their diffs never show a secret.
func (im *Import) Plans(replace bool) (cfg, client *Plan, err error) {
	data := im.configBase()
	section := "mcpServers"
	if _, found, _ := config.Lookup(data, []string{"mcpServers"}); !found {
		if _, found, _ := config.Lookup(data, []string{"servers"}); found {
			section = "servers"
		}
	}
	for _, s := range im.Servers {
		if s.Skip != "" {
			continue
		}
		if data, err = config.SetMember(data, []string{section, s.As}, im.entry(s)); err != nil {
			return nil, nil, fileError(im.Config, err)
		}
	}
	for _, in := range im.inputs {
		if data, err = config.AppendElement(data, []string{"inputs"}, in); err != nil {
			return nil, nil, fileError(im.Config, err)
		}
	}
	var redact []string
	for _, s := range im.Secrets {
		redact = append(redact, s.value)
	}
	cfg = &Plan{Path: im.Config, Action: Add, Before: im.configBefore, Existed: im.configExisted, After: data, redact: redact}
	if !replace {
		return cfg, nil, nil
	}
	client = &Plan{Client: im.Client, Path: im.From, Action: Add, Before: im.clientBefore, Existed: true, redact: redact}
	after := im.clientBefore
	for _, s := range im.Servers {
		if im.Client.TOML {
			after, err = tomlRemove(after, s.Name)
		} else {
			after, err = config.RemoveMember(after, s.where)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("taking %s out of %s: %w", s.Name, im.From, fileError(im.From, err))
		}
	}
	if im.Client.TOML {
		after, err = tomlAdd(after, tomlEntryOf(im.Client.Entry(im.self)))
	} else {
		after, err = config.SetMember(after, []string{im.Client.Key, EntryName}, im.Client.Entry(im.self))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", im.From, fileError(im.From, err))
	}
	client.After = after
	return cfg, client, nil
}

// Apply stores the secrets whose Move is set with store (the running
// instance's or the keyring's, under their Name), then writes mcp.json
// and, with replace, the assistant's file (each after a backup). Nothing
// is written when a secret cannot be stored.
func (im *Import) Apply(replace bool, store func(name, value string) error) error {
	return im.ApplyWith(replace, store, nil)
}

// ApplyWith is Apply with mcp.json written by writeConfig (Plan.ApplyWith;
// nil: an atomic write): mcptray's own edit (config.File.Replace), so the
// servers it imports need no approval.
func (im *Import) ApplyWith(replace bool, store func(name, value string) error, writeConfig config.Writer) error {
	cfg, client, err := im.Plans(replace)
	if err != nil {
		return err
	}
	// A file that cannot be written is refused before a secret moves.
	for _, p := range []*Plan{cfg, client} {
		if p != nil && p.Changed() {
			if err := checkWritable(p.Path, p.Existed); err != nil {
				return err
			}
		}
	}
	for _, s := range im.Secrets {
		if !s.Move {
			continue
		}
		if err := store(s.Name, s.value); err != nil {
			return fmt.Errorf("storing ${keyring:%s}: %w", s.Name, err)
		}
	}
	if err := cfg.ApplyWith(writeConfig); err != nil {
		return err
	}
	if client != nil {
		return client.Apply()
	}
	return nil
}

// entry is s's mcp.json entry, its secrets as the caller chose.
func (im *Import) entry(s *Imported) json.RawMessage {
	ref := map[[2]string]string{}
	for _, sec := range im.Secrets {
		if sec.Server == s.As && sec.Move {
			ref[[2]string{sec.Field, sec.Key}] = sec.Reference()
		}
	}
	var b bytes.Buffer
	b.WriteByte('{')
	field := func(k string, v []byte) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(jsonString(k))
		b.WriteByte(':')
		b.Write(v)
	}
	object := func(name string, kvs []KV) {
		if len(kvs) == 0 {
			return
		}
		var o bytes.Buffer
		o.WriteByte('{')
		for i, kv := range kvs {
			if i > 0 {
				o.WriteByte(',')
			}
			v := kv.Value
			if r, ok := ref[[2]string{name, kv.Key}]; ok {
				v = r
			}
			o.Write(jsonString(kv.Key))
			o.WriteByte(':')
			o.Write(jsonString(v))
		}
		o.WriteByte('}')
		field(name, o.Bytes())
	}
	if s.Type == config.TypeHTTP {
		field("type", jsonString("http"))
		field("url", jsonString(s.URL))
		object("headers", s.Headers)
		if s.OAuth != nil {
			field("oauth", s.OAuth.json(ref[[2]string{"oauth", "clientSecret"}]))
		}
	} else {
		field("command", jsonString(s.Command))
		if len(s.Args) > 0 {
			var a bytes.Buffer
			a.WriteByte('[')
			for i, x := range s.Args {
				if i > 0 {
					a.WriteByte(',')
				}
				a.Write(jsonString(x))
			}
			a.WriteByte(']')
			field("args", a.Bytes())
		}
		object("env", s.Env)
		if s.EnvFile != "" {
			field("envFile", jsonString(s.EnvFile))
		}
		cwd := s.Cwd
		if cwd == "" {
			cwd = s.Project
		}
		if cwd != "" {
			field("cwd", jsonString(cwd))
		}
	}
	if s.Disabled {
		field("disabled", []byte("true"))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// readServers reads the servers of a client's file in its shape, VS Code's
// inputs, and notes on entries it cannot use.
func readServers(c *Client, path string, data []byte) (servers []Server, inputs []json.RawMessage, notes []string, err error) {
	if c.TOML {
		servers, notes, err = readCodex(path, data)
		return servers, nil, notes, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, nil, nil
	}
	// add reads the servers of the object at key in doc (the file, or a
	// part of it at prefix), whose place in the file is prefix + key.
	add := func(doc []byte, prefix []string, key, project string) error {
		ms, err := config.Members(doc, []string{key})
		if err != nil && project != "" {
			notes = append(notes, fmt.Sprintf("project %s: skipped: its %q is not an object", project, key))
			return nil
		}
		if err != nil {
			return fileError(path, err)
		}
		for _, m := range ms {
			s, err := readJSONServer(m.Key, m.Value)
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s: skipped: %v", m.Key, err))
				continue
			}
			s.Project, s.where = project, append(slices.Concat(prefix, []string{key}), m.Key)
			servers = append(servers, s)
		}
		return nil
	}
	if err := add(data, nil, c.Key, ""); err != nil {
		return nil, nil, nil, err
	}
	if c.Name == "claude-code" {
		// Each project is read from its own text: ~/.claude.json can be
		// large, and has one object per project ever opened.
		projects, err := config.Members(data, []string{"projects"})
		if err != nil {
			return nil, nil, nil, fileError(path, err)
		}
		for _, p := range projects {
			if !bytes.Contains(p.Value, []byte(`"mcpServers"`)) || bytes.TrimSpace(p.Value)[0] != '{' {
				continue
			}
			if err := add(p.Value, []string{"projects", p.Key}, "mcpServers", p.Key); err != nil {
				return nil, nil, nil, err
			}
		}
	}
	if c.Key == "servers" {
		if v, found, _ := config.Lookup(data, []string{"inputs"}); found {
			var ins []json.RawMessage
			if err := json.Unmarshal(v, &ins); err != nil {
				return nil, nil, nil, fmt.Errorf("%s: \"inputs\" must be an array", path)
			}
			for _, in := range ins {
				var x struct{ ID string }
				if json.Unmarshal(in, &x) == nil && x.ID != "" {
					var b bytes.Buffer
					json.Compact(&b, in)
					inputs = append(inputs, b.Bytes())
				}
			}
		}
	}
	return servers, inputs, notes, nil
}

// readJSONServer converts one entry of a JSON client.
func readJSONServer(name string, raw json.RawMessage) (Server, error) {
	s := Server{Name: name}
	var e struct {
		Type      string          `json:"type"`
		Command   json.RawMessage `json:"command"`
		Args      []string        `json:"args"`
		EnvFile   string          `json:"envFile"`
		Cwd       string          `json:"cwd"`
		URL       string          `json:"url"`
		ServerURL string          `json:"serverUrl"` // Windsurf
		HTTPURL   string          `json:"httpUrl"`   // Gemini CLI
		Disabled  bool            `json:"disabled"`
		Enabled   *bool           `json:"enabled"` // Zed
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return s, fmt.Errorf("not an entry mcptray reads: %v", err)
	}
	s.Disabled = e.Disabled || (e.Enabled != nil && !*e.Enabled)
	env, err := stringMembers(raw, "env")
	if err != nil {
		return s, err
	}
	// Zed's earlier shape: "command": {"path", "args", "env"}.
	if len(e.Command) > 0 && e.Command[0] == '{' {
		var legacy struct {
			Path string   `json:"path"`
			Args []string `json:"args"`
		}
		if err := json.Unmarshal(e.Command, &legacy); err != nil {
			return s, fmt.Errorf(`"command" is not a string or {"path", "args", "env"}`)
		}
		s.Command, s.Args = legacy.Path, legacy.Args
		if env, err = stringMembers(e.Command, "env"); err != nil {
			return s, err
		}
	} else if len(e.Command) > 0 {
		if err := json.Unmarshal(e.Command, &s.Command); err != nil {
			return s, errors.New(`"command" must be a string`)
		}
		s.Args = e.Args
	}
	url := cmp(e.URL, e.HTTPURL, e.ServerURL)
	switch {
	case s.Command != "":
		s.Type, s.Env, s.EnvFile, s.Cwd = config.TypeStdio, env, e.EnvFile, e.Cwd
	case url != "":
		s.Type, s.URL = config.TypeHTTP, url
		if s.Headers, err = stringMembers(raw, "headers"); err != nil {
			return s, err
		}
		if s.OAuth, err = oauthOf(raw); err != nil {
			return s, err
		}
	default:
		return s, errors.New("neither a command nor a URL")
	}
	return s, nil
}

// cmp is the first of vs that is not empty.
func cmp(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// stringMembers reads the object key of the entry raw as ordered string
// pairs (nil when absent).
func stringMembers(raw json.RawMessage, key string) ([]KV, error) {
	ms, err := config.Members(raw, []string{key})
	if err != nil {
		return nil, fmt.Errorf("%q must be an object of strings", key)
	}
	var out []KV
	for _, m := range ms {
		var v string
		if err := json.Unmarshal(m.Value, &v); err != nil {
			return nil, fmt.Errorf("%q: %s is not a string", key, m.Key)
		}
		out = append(out, KV{m.Key, v})
	}
	return out, nil
}

// codexServer is one [mcp_servers.NAME] of Codex's config.toml.
type codexServer struct {
	Command           string            `toml:"command"`
	Args              []string          `toml:"args"`
	Env               map[string]string `toml:"env"`
	Cwd               string            `toml:"cwd"`
	URL               string            `toml:"url"`
	BearerTokenEnvVar string            `toml:"bearer_token_env_var"`
	HTTPHeaders       map[string]string `toml:"http_headers"`
	EnvHTTPHeaders    map[string]string `toml:"env_http_headers"`
	Enabled           *bool             `toml:"enabled"`
}

// readCodex reads Codex's servers, in file order.
func readCodex(path string, data []byte) ([]Server, []string, error) {
	if _, err := tomlDecode(path, data); err != nil {
		return nil, nil, err
	}
	var doc struct {
		MCPServers map[string]toml.Primitive `toml:"mcp_servers"`
	}
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&doc)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	var order []string
	for _, k := range md.Keys() {
		if len(k) >= 2 && k[0] == "mcp_servers" && !slices.Contains(order, k[1]) {
			order = append(order, k[1])
		}
	}
	var servers []Server
	var notes []string
	for _, name := range order {
		prim, ok := doc.MCPServers[name]
		if !ok {
			continue
		}
		var cs codexServer
		if err := md.PrimitiveDecode(prim, &cs); err != nil {
			notes = append(notes, fmt.Sprintf("%s: skipped: %v", name, err))
			continue
		}
		s := Server{Name: name, where: []string{name}, Disabled: cs.Enabled != nil && !*cs.Enabled}
		switch {
		case cs.Command != "":
			s.Type, s.Command, s.Args, s.Cwd, s.Env = config.TypeStdio, cs.Command, cs.Args, cs.Cwd, sortedKVs(cs.Env)
		case cs.URL != "":
			s.Type, s.URL, s.Headers = config.TypeHTTP, cs.URL, sortedKVs(cs.HTTPHeaders)
			for _, kv := range sortedKVs(cs.EnvHTTPHeaders) {
				s.Headers = append(s.Headers, KV{kv.Key, "${env:" + kv.Value + "}"})
			}
			if cs.BearerTokenEnvVar != "" {
				s.Headers = append(s.Headers, KV{"Authorization", "Bearer ${env:" + cs.BearerTokenEnvVar + "}"})
			}
		default:
			notes = append(notes, fmt.Sprintf("%s: skipped: neither a command nor a URL", name))
			continue
		}
		servers = append(servers, s)
	}
	return servers, notes, nil
}

func sortedKVs(m map[string]string) []KV {
	var out []KV
	for k, v := range m {
		out = append(out, KV{k, v})
	}
	slices.SortFunc(out, func(a, b KV) int { return strings.Compare(a.Key, b.Key) })
	return out
}
