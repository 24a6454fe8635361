package config

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// SetSetting sets the app-wide setting "x-mcptray".key to the string value
// in data, the raw bytes of mcp.json (JSONC allowed), and keeps every other
// byte: an existing key gets its value replaced; else the key is inserted as
// the first member of "x-mcptray", in that object's style; else an
// "x-mcptray" object holding only the key is appended to the top level. A
// file that does not parse returns its *SyntaxError; the value is not
// validated here (Load does that when the watcher applies the file).
func SetSetting(data []byte, key, value string) ([]byte, error) {
	_, root, err := parseRoot(data)
	if err != nil {
		return nil, err
	}
	k, _ := json.Marshal(key)
	v, _ := json.Marshal(value)

	settings := root.get("x-mcptray")
	if settings == nil {
		obj := fmt.Sprintf(`"x-mcptray": {%s: %s}`, k, v)
		return applyEdits(data, []edit{appendMember(data, root, obj)}), nil
	}
	if settings.kind != kindObject {
		return nil, errorAt(data, settings.start, `"x-mcptray" must be an object, got %s`, settings.kind)
	}
	var edits []edit
	for _, m := range settings.members {
		if m.key == key {
			edits = append(edits, edit{m.value.start, m.value.end, string(v)})
		}
	}
	if len(edits) == 0 {
		edits = append(edits, insertFirst(data, settings, fmt.Sprintf("%s: %s", k, v)))
	}
	return applyEdits(data, edits), nil
}

// insertFirst makes kv ("key": value) the first member of obj: on a line
// of its own with the first member's indentation when that member starts a
// line, else inline.
func insertFirst(orig []byte, obj *node, kv string) edit {
	if len(obj.members) == 0 {
		return edit{obj.start + 1, obj.start + 1, kv}
	}
	first := obj.members[0].keyStart
	lineStart := first
	for lineStart > obj.start+1 && orig[lineStart-1] != '\n' && orig[lineStart-1] != '\r' {
		lineStart--
	}
	indent := orig[lineStart:first]
	if lineStart > obj.start+1 && len(bytes.Trim(indent, " \t")) == 0 {
		return edit{first, first, kv + "," + lineEnding(orig, lineStart) + string(indent)}
	}
	return edit{first, first, kv + ", "}
}

// appendMember adds member (`"key": value`) after the last member of obj,
// on a line of its own with the last member's indentation when that member
// starts a line.
func appendMember(orig []byte, obj *node, member string) edit {
	if len(obj.members) == 0 {
		return edit{obj.start + 1, obj.start + 1, member}
	}
	last := obj.members[len(obj.members)-1]
	lineStart := last.keyStart
	for lineStart > obj.start+1 && orig[lineStart-1] != '\n' && orig[lineStart-1] != '\r' {
		lineStart--
	}
	indent := orig[lineStart:last.keyStart]
	end := last.value.end
	if lineStart > obj.start+1 && len(bytes.Trim(indent, " \t")) == 0 {
		return edit{end, end, "," + lineEnding(orig, lineStart) + string(indent) + member}
	}
	return edit{end, end, ", " + member}
}

// lineEnding is the line ending just before offset lineStart (a line's
// first byte).
func lineEnding(orig []byte, lineStart int) string {
	switch {
	case orig[lineStart-1] == '\r':
		return "\r"
	case lineStart >= 2 && orig[lineStart-2] == '\r':
		return "\r\n"
	}
	return "\n"
}
