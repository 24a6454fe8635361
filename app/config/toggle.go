package config

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
)

// SetDisabled rewrites the enable state of the server called name in data,
// the raw bytes of mcp.json (JSONC allowed), and keeps every other byte:
//
//   - an entry with "disabled" gets its value replaced (when enabling, an
//     "enabled" key next to it is set to true as well);
//   - else an entry with "enabled" gets that value replaced by the inverse;
//   - else, when disabling, `"disabled": true` is inserted as the entry's
//     first key, on its own line with the indentation of the entry's first
//     key, or inline for a one-line object;
//   - else (enabling an entry that has neither key) nothing changes.
//
// A name defined in both "mcpServers" and "servers" is changed in both. An
// unknown name is an error: `no server named "x" in mcp.json`; a file that
// does not parse returns its *SyntaxError.
func SetDisabled(data []byte, name string, disabled bool) ([]byte, error) {
	text, root, err := parseRoot(data)
	if err != nil {
		return nil, err
	}

	var edits []edit
	found := false
	for _, section := range root.members {
		if (section.key != "mcpServers" && section.key != "servers") || section.value.kind != kindObject {
			continue
		}
		for _, m := range section.value.members {
			if m.key != name {
				continue
			}
			if m.value.kind != kindObject {
				return nil, fmt.Errorf("server %q in mcp.json is not an object", name)
			}
			found = true
			edits = append(edits, entryEdits(data, text, m.value, disabled)...)
		}
	}
	if !found {
		return nil, fmt.Errorf("no server named %q in mcp.json", name)
	}
	return applyEdits(data, edits), nil
}

// edit replaces data[start:end] with text (an insertion when start == end).
type edit struct {
	start, end int
	text       string
}

func entryEdits(orig, text []byte, entry *node, disabled bool) []edit {
	var dis, en []*node
	for _, m := range entry.members {
		switch m.key {
		case "disabled":
			dis = append(dis, m.value)
		case "enabled":
			en = append(en, m.value)
		}
	}
	var edits []edit
	set := func(nodes []*node, v bool) {
		for _, n := range nodes {
			edits = append(edits, edit{n.start, n.end, strconv.FormatBool(v)})
		}
	}
	switch {
	case len(dis) > 0:
		set(dis, disabled)
		if !disabled {
			set(en, true)
		}
	case len(en) > 0:
		set(en, !disabled)
	case disabled:
		edits = append(edits, insertDisabled(orig, text, entry))
	}
	return edits
}

// insertDisabled makes `"disabled": true` the entry's first key, in the
// entry's own style.
func insertDisabled(orig, text []byte, entry *node) edit {
	if len(entry.members) == 0 {
		return edit{entry.start + 1, entry.start + 1, `"disabled": true`}
	}
	first := entry.members[0]
	// A compact entry (`"key":value`) gets a compact key.
	kv, sep := `"disabled": true,`, " "
	if keyEnd := skipString(text, first.keyStart); keyEnd+1 < len(text) && text[keyEnd] == ':' && !isSpace(text[keyEnd+1]) {
		kv, sep = `"disabled":true,`, ""
	}

	// The first key on a line of its own (after indentation only): insert a
	// line before it with the same indentation and line ending.
	lineStart := first.keyStart
	for lineStart > entry.start+1 && orig[lineStart-1] != '\n' && orig[lineStart-1] != '\r' {
		lineStart--
	}
	indent := orig[lineStart:first.keyStart]
	if lineStart > entry.start+1 && len(bytes.Trim(indent, " \t")) == 0 {
		nl := "\n"
		switch {
		case orig[lineStart-1] == '\r':
			nl = "\r"
		case lineStart >= 2 && orig[lineStart-2] == '\r':
			nl = "\r\n"
		}
		return edit{first.keyStart, first.keyStart, kv + nl + string(indent)}
	}
	return edit{first.keyStart, first.keyStart, kv + sep}
}

// applyEdits applies non-overlapping edits to a copy of data.
func applyEdits(data []byte, edits []edit) []byte {
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	var out bytes.Buffer
	out.Grow(len(data) + 32*len(edits))
	last := 0
	for _, e := range edits {
		out.Write(data[last:e.start])
		out.WriteString(e.text)
		last = e.end
	}
	out.Write(data[last:])
	return out.Bytes()
}
