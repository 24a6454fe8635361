package inbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Field is one field of a form request in the inbox, read from the
// server's requested schema (the 2025-11-25 elicitation schema: flat, of
// primitive types).
type Field struct {
	Name        string `json:"name"`
	Type        string `json:"type"` // string, number, integer, boolean, or array (a multi-select)
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Secret fields are masked: format "password", writeOnly, or a name or
	// title with password, passphrase, secret, token, pin or key in it.
	Secret   bool `json:"secret"`
	Required bool `json:"required"`
	// Default is the schema's default, typed like the answer; pre-fill it.
	// It is left out of JSON (the control API, `inbox --json`) for a secret
	// field; HasDefault still says there is one.
	Default    any    `json:"default,omitempty"`
	HasDefault bool   `json:"hasDefault,omitempty"`
	Format     string `json:"format,omitempty"` // email, uri, date, date-time, password
	MinLength  *int   `json:"minLength,omitempty"`
	MaxLength  *int   `json:"maxLength,omitempty"`
	// Minimum and Maximum bound a number or integer.
	Minimum *float64 `json:"minimum,omitempty"`
	Maximum *float64 `json:"maximum,omitempty"`
	// Options are the choices of a single-select (type string) or a
	// multi-select (type array).
	Options  []Option `json:"options,omitempty"`
	MinItems *int     `json:"minItems,omitempty"`
	MaxItems *int     `json:"maxItems,omitempty"`
}

// Option is one choice of a select field.
type Option struct {
	Value string `json:"value"`
	Title string `json:"title,omitempty"` // shown instead of Value when set
}

// Label is how a person sees the field: its title, else its name.
func (f Field) Label() string {
	if f.Title != "" {
		return f.Title
	}
	return f.Name
}

// MarshalJSON leaves a secret field's default out.
func (f Field) MarshalJSON() ([]byte, error) {
	type plain Field
	p := plain(f)
	if p.Secret {
		p.Default = nil
	}
	return json.Marshal(p)
}

// InvalidAnswerError refuses an answer: the request stays open. Its text
// names the field and the reason, never the value.
type InvalidAnswerError struct {
	Field  string // the field's name; "" for the answer as a whole
	Reason string // e.g. "must be an integer"
}

func (e *InvalidAnswerError) Error() string {
	if e.Field == "" {
		return e.Reason
	}
	return fmt.Sprintf("field %q %s", e.Field, e.Reason)
}

// FormFields reads a requested schema into fields, in the order the
// server wrote its properties when raw is given (else by name). secret
// names the secret fields.
func FormFields(raw json.RawMessage, schema any, secret []string) ([]Field, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		if schema == nil {
			return nil, nil
		}
		b, err := json.Marshal(schema)
		if err != nil {
			return nil, fmt.Errorf("reading the form: %w", err)
		}
		raw = b
	}
	var s struct {
		Type       string          `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("reading the form: %w", err)
	}
	if s.Type != "" && s.Type != "object" {
		return nil, fmt.Errorf("reading the form: the schema's type is %q, not object", s.Type)
	}
	names, props, err := orderedObject(s.Properties)
	if err != nil {
		return nil, fmt.Errorf("reading the form: properties: %w", err)
	}
	fields := make([]Field, 0, len(names))
	for _, name := range names {
		var p map[string]any
		if err := json.Unmarshal(props[name], &p); err != nil {
			return nil, fmt.Errorf("reading the form: property %q is not an object", name)
		}
		f := fieldOf(name, p)
		f.Required = slices.Contains(s.Required, name)
		f.Secret = slices.Contains(secret, name)
		if d, ok := p["default"]; ok && d != nil {
			if v, err := f.Parse(d); err == nil {
				f.Default, f.HasDefault = v, true
			}
		}
		fields = append(fields, f)
	}
	return fields, nil
}

// orderedObject returns the keys of a JSON object in order, and each
// value.
func orderedObject(raw json.RawMessage) ([]string, map[string]json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return nil, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if tok != json.Delim('{') {
		return nil, nil, errors.New("not an object")
	}
	var names []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if _, dup := vals[name]; !dup {
			names = append(names, name)
		}
		vals[name] = v
	}
	return names, vals, nil
}

// fieldOf reads one property's schema.
func fieldOf(name string, p map[string]any) Field {
	f := Field{Name: name}
	f.Type, _ = p["type"].(string)
	f.Title, _ = p["title"].(string)
	f.Description, _ = p["description"].(string)
	f.Format, _ = p["format"].(string)
	f.MinLength, f.MaxLength = intAttr(p, "minLength"), intAttr(p, "maxLength")
	f.Minimum, f.Maximum = floatAttr(p, "minimum"), floatAttr(p, "maximum")
	f.MinItems, f.MaxItems = intAttr(p, "minItems"), intAttr(p, "maxItems")
	switch {
	case p["enum"] != nil:
		f.Options = enumOptions(p["enum"], p["enumNames"])
	case p["oneOf"] != nil:
		f.Options = constOptions(p["oneOf"])
	case p["anyOf"] != nil && f.Type != "array":
		f.Options = constOptions(p["anyOf"])
	}
	if f.Type == "" && f.Options != nil {
		f.Type = "string"
	}
	if items, ok := p["items"].(map[string]any); ok && f.Type == "array" {
		switch {
		case items["enum"] != nil:
			f.Options = enumOptions(items["enum"], items["enumNames"])
		case items["anyOf"] != nil:
			f.Options = constOptions(items["anyOf"])
		case items["oneOf"] != nil:
			f.Options = constOptions(items["oneOf"])
		}
	}
	return f
}

func intAttr(p map[string]any, key string) *int {
	if v, ok := p[key].(float64); ok && v >= 0 && v == math.Trunc(v) && v < math.MaxInt32 {
		n := int(v)
		return &n
	}
	return nil
}

func floatAttr(p map[string]any, key string) *float64 {
	if v, ok := p[key].(float64); ok {
		return &v
	}
	return nil
}

func enumOptions(values, names any) []Option {
	vs, _ := values.([]any)
	ns, _ := names.([]any)
	out := make([]Option, 0, len(vs))
	for i, v := range vs {
		s, ok := v.(string)
		if !ok {
			continue
		}
		o := Option{Value: s}
		if len(ns) == len(vs) {
			o.Title, _ = ns[i].(string)
		}
		out = append(out, o)
	}
	return out
}

func constOptions(list any) []Option {
	entries, _ := list.([]any)
	out := make([]Option, 0, len(entries))
	for _, e := range entries {
		m, _ := e.(map[string]any)
		c, ok := m["const"].(string)
		if !ok {
			continue
		}
		title, _ := m["title"].(string)
		out = append(out, Option{Value: c, Title: title})
	}
	return out
}

// Parse checks one value for the field and returns it typed for the
// answer: a string, a float64 (number), an int64 (integer), a bool, or a
// []string (multi-select). Strings are read by the field's type ("42",
// "yes", "a, b" for a multi-select), and a select's option may be given by
// its title. The error is an *InvalidAnswerError; it never holds the
// value.
func (f Field) Parse(v any) (any, error) {
	bad := func(format string, args ...any) error {
		return &InvalidAnswerError{Field: f.Name, Reason: fmt.Sprintf(format, args...)}
	}
	switch f.Type {
	case "string":
		s, ok := v.(string)
		if !ok {
			return nil, bad("must be text")
		}
		if f.Options != nil {
			return f.option(s)
		}
		n := utf8.RuneCountInString(s)
		if f.MinLength != nil && n < *f.MinLength {
			return nil, bad("must be at least %d characters long", *f.MinLength)
		}
		if f.MaxLength != nil && n > *f.MaxLength {
			return nil, bad("must be at most %d characters long", *f.MaxLength)
		}
		if err := checkFormat(f.Format, s); err != nil {
			return nil, bad("%s", err)
		}
		return s, nil
	case "number", "integer":
		x, ok := number(v)
		if !ok {
			return nil, bad("must be a number")
		}
		if f.Type == "integer" && (x != math.Trunc(x) || math.Abs(x) > 1<<53) {
			return nil, bad("must be a whole number")
		}
		if f.Minimum != nil && x < *f.Minimum {
			return nil, bad("must be at least %s", fmtNumber(*f.Minimum))
		}
		if f.Maximum != nil && x > *f.Maximum {
			return nil, bad("must be at most %s", fmtNumber(*f.Maximum))
		}
		if f.Type == "integer" {
			return int64(x), nil
		}
		return x, nil
	case "boolean":
		switch b := v.(type) {
		case bool:
			return b, nil
		case string:
			switch strings.ToLower(strings.TrimSpace(b)) {
			case "true", "yes", "y", "1", "on":
				return true, nil
			case "false", "no", "n", "0", "off":
				return false, nil
			}
		}
		return nil, bad("must be yes or no (true or false)")
	case "array":
		var items []string
		switch a := v.(type) {
		case []string:
			items = a
		case []any:
			for _, x := range a {
				s, ok := x.(string)
				if !ok {
					return nil, bad("must be a list of choices")
				}
				items = append(items, s)
			}
		case string:
			for s := range strings.SplitSeq(a, ",") {
				if s = strings.TrimSpace(s); s != "" {
					items = append(items, s)
				}
			}
		default:
			return nil, bad("must be a list of choices")
		}
		out := make([]string, 0, len(items))
		for _, s := range items {
			if f.Options != nil {
				o, err := f.option(s)
				if err != nil {
					return nil, err
				}
				s = o.(string)
			}
			if slices.Contains(out, s) {
				return nil, bad("lists %q twice", s)
			}
			out = append(out, s)
		}
		if f.MinItems != nil && len(out) < *f.MinItems {
			return nil, bad("needs at least %d choice(s)", *f.MinItems)
		}
		if f.MaxItems != nil && len(out) > *f.MaxItems {
			return nil, bad("takes at most %d choice(s)", *f.MaxItems)
		}
		return out, nil
	}
	return nil, bad("has type %q, which mcptray cannot fill in", f.Type)
}

// option maps a value or an option's title to the option's value.
func (f Field) option(s string) (any, error) {
	for _, o := range f.Options {
		if o.Value == s {
			return o.Value, nil
		}
	}
	t := strings.TrimSpace(s)
	for _, o := range f.Options {
		if o.Title != "" && strings.EqualFold(o.Title, t) || strings.EqualFold(o.Value, t) {
			return o.Value, nil
		}
	}
	names := make([]string, len(f.Options))
	for i, o := range f.Options {
		names[i] = o.Value
	}
	return nil, &InvalidAnswerError{Field: f.Name, Reason: "must be one of " + strings.Join(names, ", ")}
}

func number(v any) (float64, bool) {
	var x float64
	switch n := v.(type) {
	case float64:
		x = n
	case float32:
		x = float64(n)
	case int:
		x = float64(n)
	case int64:
		x = float64(n)
	case json.Number:
		f, err := n.Float64()
		if err != nil {
			return 0, false
		}
		x = f
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		if err != nil {
			return 0, false
		}
		x = f
	default:
		return 0, false
	}
	return x, !math.IsNaN(x) && !math.IsInf(x, 0)
}

func fmtNumber(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// checkFormat checks a string against the schema formats the 2025-11-25
// elicitation schema allows. Its errors never quote the value.
func checkFormat(format, s string) error {
	switch format {
	case "email":
		a, err := mail.ParseAddress(s)
		if err != nil || a.Address != s || a.Name != "" {
			return errors.New("must be an email address like name@example.com")
		}
	case "uri":
		u, err := url.Parse(s)
		if err != nil || u.Scheme == "" || strings.ContainsAny(s, " \t\n") {
			return errors.New("must be a URI like https://example.com/page")
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return errors.New("must be a date like 2026-07-03")
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return errors.New("must be a date and time like 2026-07-03T14:30:00Z")
		}
	}
	return nil
}

// answerContent checks a form's answer: every value is parsed for its
// field, missing ones take their defaults, and a required field without
// either refuses the answer. Strings that are empty count as not given for
// every type but string. The result is what goes to the server.
func answerContent(fields []Field, given map[string]any) (map[string]any, error) {
	for name := range given {
		if !slices.ContainsFunc(fields, func(f Field) bool { return f.Name == name }) {
			return nil, &InvalidAnswerError{Field: name, Reason: "is not in the form"}
		}
	}
	out := make(map[string]any, len(fields))
	for _, f := range fields {
		v, ok := given[f.Name]
		if s, isStr := v.(string); ok && (v == nil || isStr && s == "" && f.Type != "string") {
			ok = false
		}
		if !ok {
			switch {
			case f.HasDefault:
				out[f.Name] = f.Default
			case f.Required:
				return nil, &InvalidAnswerError{Field: f.Name, Reason: "is required"}
			}
			continue
		}
		pv, err := f.Parse(v)
		if err != nil {
			return nil, err
		}
		out[f.Name] = pv
	}
	return out, nil
}
