package assistants

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// Codex's config.toml is edited as text: setup appends a table
//
//	[mcp_servers.mcptray]
//	command = "/abs/path/mcptray"
//	args = ["connect"]
//
// at the end of the file (after a blank line), or rewrites that table where
// it is; --remove takes the table out with the line break before it. The
// file is parsed (BurntSushi/toml) before, to refuse a broken one with its
// line and column, and after, to check that the result holds exactly the
// entry wanted (or no entry) — so a form the text edit does not handle (an
// inline table, dotted keys) is refused rather than broken.

// tomlTable is one [table] or [[array table]] header of a file, and the
// lines up to the next header.
type tomlTable struct {
	key   []string
	array bool
	start int // offset of the header line's first byte
	end   int // offset of the next header line, or the file's end
}

// tomlTables finds the table headers of data, which must parse: a "[" that
// starts a line (past blanks), outside strings and outside the brackets of
// a value (an array over several lines).
func tomlTables(data []byte) ([]tomlTable, error) {
	var out []tomlTable
	depth := 0 // of [ and { in values
	lineStart := true
	for i := 0; i < len(data); {
		if lineStart && depth == 0 {
			ls := i
			for i < len(data) && (data[i] == ' ' || data[i] == '\t') {
				i++
			}
			lineStart = false
			if i < len(data) && data[i] == '[' {
				key, array, n, err := tomlHeader(data[i:])
				if err != nil {
					return nil, err
				}
				if k := len(out); k > 0 {
					out[k-1].end = ls
				}
				out = append(out, tomlTable{key: key, array: array, start: ls, end: len(data)})
				i += n
				for i < len(data) && data[i] != '\n' { // blanks, a comment
					i++
				}
			}
			continue
		}
		switch c := data[i]; {
		case c == '\n':
			lineStart = true
			i++
		case c == '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			i = tomlSkipString(data, i)
		case c == '[' || c == '{':
			depth++
			i++
		case c == ']' || c == '}':
			depth--
			i++
		default:
			i++
		}
	}
	return out, nil
}

// tomlSkipString returns the offset just past the string (basic, literal,
// or either's multi-line form) starting at data[i].
func tomlSkipString(data []byte, i int) int {
	q := data[i]
	if triple := bytes.Repeat([]byte{q}, 3); bytes.HasPrefix(data[i:], triple) {
		i += 3
		for i < len(data) && !bytes.HasPrefix(data[i:], triple) {
			if q == '"' && data[i] == '\\' {
				i++
			}
			i++
		}
		i += 3
		for i < len(data) && data[i] == q { // up to two quotes end the text
			i++
		}
		return min(i, len(data))
	}
	for i++; i < len(data) && data[i] != q && data[i] != '\n'; i++ {
		if q == '"' && data[i] == '\\' {
			i++
		}
	}
	return min(i+1, len(data))
}

// tomlLineEnd returns the offset just past the line break that ends the
// logical line at data[i:], skipping strings (multi-line ones included)
// and comments.
func tomlLineEnd(data []byte, i int) int {
	for i < len(data) {
		switch c := data[i]; {
		case c == '\n':
			return i + 1
		case c == '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			i = tomlSkipString(data, i)
		default:
			i++
		}
	}
	return len(data)
}

// tomlHeader parses the header starting at b[0] == '[': its key, and how
// many bytes it takes up to its closing bracket(s).
func tomlHeader(b []byte) (key []string, array bool, n int, err error) {
	i := 1
	if len(b) > 1 && b[1] == '[' {
		array, i = true, 2
	}
	for {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		if i >= len(b) {
			return nil, false, 0, errors.New("a table header is not closed")
		}
		switch c := b[i]; {
		case c == '"':
			j := i + 1
			for j < len(b) && b[j] != '"' && b[j] != '\n' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			var s string
			if err := toml.Unmarshal([]byte("k = "+string(b[i:min(j+1, len(b))])), &struct{ K *string }{&s}); err != nil {
				return nil, false, 0, fmt.Errorf("a table header's key: %w", err)
			}
			key, i = append(key, s), j+1
		case c == '\'':
			j := i + 1
			for j < len(b) && b[j] != '\'' && b[j] != '\n' {
				j++
			}
			key, i = append(key, string(b[i+1:min(j, len(b))])), j+1
		default:
			j := i
			for j < len(b) && (b[j] >= 'a' && b[j] <= 'z' || b[j] >= 'A' && b[j] <= 'Z' || b[j] >= '0' && b[j] <= '9' || b[j] == '_' || b[j] == '-') {
				j++
			}
			if j == i {
				return nil, false, 0, errors.New("a table header has an empty key")
			}
			key, i = append(key, string(b[i:j])), j
		}
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		if i < len(b) && b[i] == '.' {
			i++
			continue
		}
		for k := 0; k < 1+btoi(array) && i < len(b) && b[i] == ']'; k++ {
			i++
		}
		return key, array, i, nil
	}
}

// tomlEntry is mcptray's entry as Codex reads it.
type tomlEntry struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

func tomlEntryOf(entry json.RawMessage) tomlEntry {
	var e tomlEntry
	json.Unmarshal(entry, &e)
	return e
}

// tomlDecode parses data, or says where it is broken (path:line:col).
func tomlDecode(path string, data []byte) (map[string]any, error) {
	var v map[string]any
	if _, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&v); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d:%d: %s", path, pe.Position.Line, pe.Position.Col, pe.Message)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// tomlServer is the value of mcp_servers.NAME in a decoded file, or nil.
func tomlServer(v map[string]any, name string) (map[string]any, bool) {
	servers, _ := v["mcp_servers"].(map[string]any)
	s, ok := servers[name]
	if !ok {
		return nil, false
	}
	m, _ := s.(map[string]any)
	return m, true
}

// isEntry reports whether a decoded server is exactly e.
func (e tomlEntry) isEntry(s map[string]any) bool {
	if len(s) != 2 {
		return false
	}
	cmd, _ := s["command"].(string)
	args, _ := s["args"].([]any)
	if cmd != e.Command || len(args) != len(e.Args) {
		return false
	}
	for i, a := range args {
		if a != e.Args[i] {
			return false
		}
	}
	return true
}

func tomlInstalled(path string, data []byte, entry json.RawMessage) (installed, current bool, err error) {
	v, err := tomlDecode(path, data)
	if err != nil {
		return false, false, err
	}
	s, ok := tomlServer(v, EntryName)
	if !ok {
		return false, false, nil
	}
	return true, tomlEntryOf(entry).isEntry(s), nil
}

// block is the table's text, with line ending nl.
func (e tomlEntry) block(nl string) string {
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		args[i] = tomlString(a)
	}
	return "[mcp_servers." + EntryName + "]" + nl +
		"command = " + tomlString(e.Command) + nl +
		"args = [" + strings.Join(args, ", ") + "]" + nl
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string { return `"` + tomlEscape(s) + `"` }

// tomlEscape is the inside of s as a TOML basic string.
func tomlEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		case r == utf8.RuneError:
			b.WriteString(`\uFFFD`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// region is where the tables of mcp_servers.NAME (and its sub-tables) are:
// from the first header to the end of the last line that is neither blank
// nor only a comment. ok is false when there is no such header; an error,
// when they are not one run.
func tomlRegion(data []byte, name string) (start, end int, ok bool, err error) {
	tables, err := tomlTables(data)
	if err != nil {
		return 0, 0, false, err
	}
	want := []string{"mcp_servers", name}
	first, last := -1, -1
	for i, t := range tables {
		if len(t.key) >= 2 && slices.Equal(t.key[:2], want) {
			if first >= 0 && last != i-1 {
				return 0, 0, false, fmt.Errorf("the tables of mcp_servers.%s are not together", name)
			}
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return 0, 0, false, nil
	}
	start, end = tables[first].start, tables[first].start
	for i := start; i < tables[last].end; {
		next := tomlLineEnd(data, i)
		line := bytes.TrimSpace(data[i:next])
		if len(line) > 0 && line[0] != '#' {
			end = next
		}
		i = next
	}
	return start, end, true, nil
}

// lineEndingOf is the file's line ending: \r\n when its first line ends so.
func lineEndingOf(data []byte) string {
	if i := bytes.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

func (c *Client) planTOML(p *Plan, e Env, backup []byte, hasBackup bool) error {
	v, err := tomlDecode(p.Path, p.Before)
	if err != nil {
		return err
	}
	want := tomlEntryOf(c.Entry(e.Self))
	s, present := tomlServer(v, EntryName)
	switch p.Action {
	case Add:
		if present && want.isEntry(s) {
			p.After = p.Before
			return nil
		}
		after, err := tomlAdd(p.Before, want)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Path, err)
		}
		p.After = after
	case Remove:
		if !present {
			p.After = p.Before
			return nil
		}
		if hasBackup {
			if bv, err := tomlDecode(p.Path, backup); err == nil {
				if _, had := tomlServer(bv, EntryName); !had {
					if cur := tomlEntryOf(c.Entry(e.Self)); cur.isEntry(s) {
						if redo, err := tomlAdd(backup, cur); err == nil && bytes.Equal(redo, p.Before) {
							p.After = backup
							return nil
						}
					}
				}
			}
		}
		after, err := tomlRemove(p.Before, EntryName)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Path, err)
		}
		p.After = after
		if len(bytes.TrimSpace(after)) == 0 && !hasBackup {
			p.Delete = true
		}
	}
	return nil
}

// tomlAdd puts the entry's table in data: in place of the one there, else
// at the end after a blank line. The result is checked by parsing it.
func tomlAdd(data []byte, e tomlEntry) ([]byte, error) {
	nl := lineEndingOf(data)
	start, end, ok, err := tomlRegion(data, EntryName)
	if err != nil {
		return nil, err
	}
	if inlineServers(data) {
		// BurntSushi/toml lets a [table] extend it; Codex's parser does not.
		return nil, fmt.Errorf("mcp_servers is set as a whole (mcp_servers = …), which a [mcp_servers.%s] table cannot extend; add mcptray to it by hand", EntryName)
	}
	var out []byte
	switch {
	case ok:
		out = slices.Concat(data[:start], []byte(e.block(nl)), data[end:])
	case len(data) == 0:
		out = []byte(e.block(nl))
	default:
		// After a blank line; a file without a final line break gets
		// just one, so that --remove, taking one line break, gives it back.
		out = slices.Concat(data, []byte(nl), []byte(e.block(nl)))
	}
	v, err := tomlDecode("the result", out)
	if err != nil {
		return nil, fmt.Errorf("cannot add [mcp_servers.%s] here (%v); add it by hand", EntryName, err)
	}
	if s, _ := tomlServer(v, EntryName); !e.isEntry(s) {
		return nil, fmt.Errorf("mcp_servers.%s is defined in a form setup does not edit (an inline table or dotted keys); change it by hand", EntryName)
	}
	return out, nil
}

// tomlRemove takes the tables of mcp_servers.name out of data, with the
// line break before them (at the file's end) or the blank line before
// them (elsewhere). The result is checked by parsing it.
func tomlRemove(data []byte, name string) ([]byte, error) {
	start, end, ok, err := tomlRegion(data, name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("mcp_servers.%s is defined in a form setup does not edit (an inline table or dotted keys); remove it by hand", name)
	}
	from := start
	switch {
	case end == len(data) && from > 0:
		from-- // the line break before the table
		if from > 0 && data[from-1] == '\r' {
			from--
		}
	case from > 0:
		// A blank line before the table goes with it.
		ls := from - 1
		for ls > 0 && data[ls-1] != '\n' {
			ls--
		}
		if len(bytes.TrimSpace(data[ls:from])) == 0 && ls < from {
			from = ls
		}
	}
	out := slices.Concat(data[:from], data[end:])
	v, err := tomlDecode("the result", out)
	if err != nil {
		return nil, fmt.Errorf("cannot take [mcp_servers.%s] out (%v); remove it by hand", name, err)
	}
	if _, still := tomlServer(v, name); still {
		return nil, fmt.Errorf("mcp_servers.%s is also defined in a form setup does not edit; remove it by hand", name)
	}
	return out, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rootServersLine matches a line of the root table that sets mcp_servers
// as a whole: mcp_servers = {…}.
var rootServersLine = regexp.MustCompile(`^[ \t]*(mcp_servers|"mcp_servers"|'mcp_servers')[ \t]*=`)

// inlineServers reports whether the root table (before the first header)
// sets mcp_servers with "=".
func inlineServers(data []byte) bool {
	end := len(data)
	if tables, err := tomlTables(data); err == nil && len(tables) > 0 {
		end = tables[0].start
	}
	for i := 0; i < end; {
		next := tomlLineEnd(data, i)
		if rootServersLine.Match(data[i:next]) {
			return true
		}
		i = next
	}
	return false
}
