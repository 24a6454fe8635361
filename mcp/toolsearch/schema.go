package toolsearch

import (
	"encoding/json"
	"sort"
	"strings"
)

// paramsText is the names and descriptions of a tool's parameters, read
// from its input schema's properties and from those of nested objects and
// arrays of objects, maxDepth levels down. A schema that is not a JSON
// object gives "": the tool is still found by its name and description.
func paramsText(schema any) string {
	m := schemaMap(schema)
	if m == nil {
		return ""
	}
	var b strings.Builder
	walkProps(m, 0, &b)
	return b.String()
}

const maxDepth = 2

func walkProps(schema map[string]any, depth int, b *strings.Builder) {
	props, _ := schema["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names) // the same text for the same schema, whatever the map's order
	for _, name := range names {
		b.WriteString(name)
		b.WriteByte(' ')
		p, _ := props[name].(map[string]any)
		if p == nil {
			continue
		}
		if d, ok := p["description"].(string); ok {
			b.WriteString(d)
			b.WriteByte(' ')
		}
		if depth+1 >= maxDepth {
			continue
		}
		walkProps(p, depth+1, b)
		if items, ok := p["items"].(map[string]any); ok {
			walkProps(items, depth+1, b)
		}
	}
}

// schemaMap reads a schema as the SDK's client decodes it
// (map[string]any), as raw JSON, or as any value that marshals to a JSON
// object (*jsonschema.Schema).
func schemaMap(schema any) map[string]any {
	switch s := schema.(type) {
	case nil:
		return nil
	case map[string]any:
		return s
	case json.RawMessage:
		return unmarshalObject(s)
	case []byte:
		return unmarshalObject(s)
	case string:
		return unmarshalObject([]byte(s))
	default:
		b, err := json.Marshal(s)
		if err != nil {
			return nil
		}
		return unmarshalObject(b)
	}
}

func unmarshalObject(b []byte) map[string]any {
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}
