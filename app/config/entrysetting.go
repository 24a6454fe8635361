package config

import (
	"encoding/json"
	"fmt"
)

// Editing one key of an entry's own "x-mcptray" object (disabledTools,
// allowTools), in the style of SetDisabled: every other byte is kept.

// entryNodes returns the entry objects of the server called name ("mcpServers"
// and "servers" alike), or the error SetDisabled gives.
func entryNodes(root *node, name string) ([]*node, error) {
	var out []*node
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
			out = append(out, m.value)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no server named %q in mcp.json", name)
	}
	return out, nil
}

// EntryList reads the list "x-mcptray".key of the server called name in
// data (mcp.json, JSONC allowed): nil when the entry has none. A file that
// does not parse returns its *SyntaxError.
func EntryList(data []byte, name, key string) ([]string, error) {
	text, root, err := parseRoot(data)
	if err != nil {
		return nil, err
	}
	es, err := entryNodes(root, name)
	if err != nil {
		return nil, err
	}
	settings := es[len(es)-1].get("x-mcptray")
	if settings == nil || settings.kind != kindObject {
		return nil, nil
	}
	v := settings.get(key)
	if v == nil {
		return nil, nil
	}
	return stringList(v, text, "x-mcptray."+key)
}

// SetEntryList sets "x-mcptray".key of the server called name to list (a
// JSON array of strings) in data, and keeps every other byte: an existing
// key gets its value replaced; else the key becomes the first member of the
// entry's "x-mcptray"; else an "x-mcptray" object holding only the key is
// added as the entry's last member. A name defined in both "mcpServers" and
// "servers" is changed in both; an unknown name is an error.
func SetEntryList(data []byte, name, key string, list []string) ([]byte, error) {
	_, root, err := parseRoot(data)
	if err != nil {
		return nil, err
	}
	es, err := entryNodes(root, name)
	if err != nil {
		return nil, err
	}
	if list == nil {
		list = []string{}
	}
	k, _ := json.Marshal(key)
	v, _ := json.Marshal(list)
	var edits []edit
	for _, e := range es {
		settings := e.get("x-mcptray")
		switch {
		case settings == nil:
			edits = append(edits, appendMember(data, e, fmt.Sprintf(`"x-mcptray": {%s: %s}`, k, v)))
		case settings.kind != kindObject:
			return nil, errorAt(data, settings.start, `"x-mcptray" of server %q must be an object, got %s`, name, settings.kind)
		default:
			n := len(edits)
			for _, m := range settings.members {
				if m.key == key {
					edits = append(edits, edit{m.value.start, m.value.end, string(v)})
				}
			}
			if len(edits) == n {
				edits = append(edits, insertFirst(data, settings, fmt.Sprintf("%s: %s", k, v)))
			}
		}
	}
	return applyEdits(data, edits), nil
}
