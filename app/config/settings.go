package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strconv"
	"time"
)

// parseSettings reads the top-level "x-mcptray" object. Unknown keys are
// kept in Raw; a known key of the wrong type or value fails the file, so a
// typo never silently turns, say, the tool mode back to its default.
func parseSettings(s *Settings, orig, text []byte, n *node) error {
	if n.kind != kindObject {
		return errorAt(orig, n.start, `"x-mcptray" must be an object, got %s`, n.kind)
	}
	s.Raw = compactMembers(text, n)
	for _, m := range n.members {
		var allowed []string
		var dst *string
		switch m.key {
		case "callTimeout":
			d, err := parseDuration(m.value, text)
			if err != nil {
				return errorAt(orig, m.value.start, "x-mcptray.callTimeout %s", err)
			}
			s.CallTimeout = d
			continue
		case "inboxTimeout":
			d, err := parseDuration(m.value, text)
			if err != nil {
				return errorAt(orig, m.value.start, "x-mcptray.inboxTimeout %s", err)
			}
			s.InboxTimeout = d
			continue
		case "inputTimeout":
			d, err := parseDuration(m.value, text)
			if err != nil {
				return errorAt(orig, m.value.start, "x-mcptray.inputTimeout %s", err)
			}
			s.InputTimeout = d
			continue
		case "eventRetentionDays":
			days, err := parseDays(m.value, text)
			if err != nil {
				return errorAt(orig, m.value.start, "x-mcptray.eventRetentionDays %s", err)
			}
			s.EventRetentionDays = days
			continue
		case "loginShell":
			if m.value.kind != kindBool {
				return errorAt(orig, m.value.start, "x-mcptray.loginShell must be true or false, got %s", m.value.kind)
			}
			s.NoLoginShell = !m.value.boolean(text)
			continue
		case "trustConfigEdits":
			if m.value.kind != kindBool {
				return errorAt(orig, m.value.start, "x-mcptray.trustConfigEdits must be true or false, got %s", m.value.kind)
			}
			s.TrustConfigEdits = m.value.boolean(text)
			continue
		case "approve":
			dst, allowed = &s.Approve, approveModes
		case "listen":
			dst = &s.Listen
		case "tools":
			dst, allowed = &s.Tools, []string{"live", "stable", "dynamic"}
		case "elicitation":
			dst, allowed = &s.Elicitation, []string{"auto", "local"}
		default:
			continue
		}
		v := m.value
		if v.kind != kindString {
			return errorAt(orig, v.start, "x-mcptray.%s must be a string, got %s", m.key, v.kind)
		}
		val := v.str(text)
		if allowed != nil && !slices.Contains(allowed, val) {
			return errorAt(orig, v.start, "x-mcptray.%s must be %s, got %q", m.key, quotedList(allowed), val)
		}
		if m.key == "listen" {
			host, _, err := net.SplitHostPort(val)
			if err != nil {
				return errorAt(orig, v.start, `x-mcptray.listen must be host:port, like "127.0.0.1:7823", got %q`, val)
			}
			if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
				return errorAt(orig, v.start, `x-mcptray.listen must be a loopback address (127.0.0.1, [::1] or localhost), got %q`, val)
			}
		}
		*dst = val
	}
	return nil
}

// parseInputs reads VS Code's "inputs" array.
func parseInputs(cfg *Config, orig, text []byte, n *node) error {
	if n.kind != kindArray {
		return errorAt(orig, n.start, `"inputs" must be an array, got %s`, n.kind)
	}
	ids := map[string]bool{}
	for i, e := range n.elems {
		if e.kind != kindObject {
			return errorAt(orig, e.start, "inputs[%d] must be an object, got %s", i, e.kind)
		}
		var in Input
		id := e.get("id")
		if id == nil || id.kind != kindString || id.str(text) == "" {
			return errorAt(orig, e.start, `inputs[%d]: "id" must be a non-empty string`, i)
		}
		in.ID = id.str(text)
		if ids[in.ID] {
			return errorAt(orig, id.start, "inputs[%d]: id %q is used twice", i, in.ID)
		}
		ids[in.ID] = true
		for _, f := range []struct {
			key string
			dst *string
		}{{"type", &in.Type}, {"description", &in.Description}, {"default", &in.Default}} {
			v := e.get(f.key)
			if v == nil {
				continue
			}
			if v.kind != kindString {
				return errorAt(orig, v.start, "inputs[%d].%s must be a string, got %s", i, f.key, v.kind)
			}
			*f.dst = v.str(text)
		}
		if v := e.get("password"); v != nil {
			if v.kind != kindBool {
				return errorAt(orig, v.start, "inputs[%d].password must be true or false, got %s", i, v.kind)
			}
			in.Password = v.boolean(text)
		}
		if v := e.get("options"); v != nil {
			if v.kind != kindArray {
				return errorAt(orig, v.start, "inputs[%d].options must be an array, got %s", i, v.kind)
			}
			for j, o := range v.elems {
				if o.kind == kindObject {
					if val := o.get("value"); val != nil && val.kind == kindString {
						in.Options = append(in.Options, val.str(text))
						continue
					}
				}
				if o.kind != kindString {
					return errorAt(orig, o.start, `inputs[%d].options[%d] must be a string or {"label", "value"}, got %s`, i, j, o.kind)
				}
				in.Options = append(in.Options, o.str(text))
			}
		}
		cfg.Inputs = append(cfg.Inputs, in)
	}
	return nil
}

// compactMembers returns an object's members as compacted raw JSON, so
// whitespace and comments inside do not change a Fingerprint. A repeated key
// keeps its last value.
func compactMembers(text []byte, n *node) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(n.members))
	for _, m := range n.members {
		var b bytes.Buffer
		if err := json.Compact(&b, m.value.raw(text)); err != nil {
			out[m.key] = append(json.RawMessage(nil), m.value.raw(text)...)
			continue
		}
		out[m.key] = b.Bytes()
	}
	return out
}

// quotedList renders ["a","b","c"] as `"a", "b" or "c"`.
func quotedList(list []string) string {
	var b bytes.Buffer
	for i, v := range list {
		switch {
		case i == 0:
		case i == len(list)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(`"` + v + `"`)
	}
	return b.String()
}

// parseDuration reads a positive duration: a Go duration string ("90s",
// "5m") or a number of seconds.
func parseDuration(v *node, text []byte) (time.Duration, error) {
	var d time.Duration
	switch v.kind {
	case kindString:
		var err error
		if d, err = time.ParseDuration(v.str(text)); err != nil {
			return 0, fmt.Errorf(`must be a duration like "90s" or "5m", got %q`, v.str(text))
		}
	case kindNumber:
		secs, err := strconv.ParseFloat(string(text[v.start:v.end]), 64)
		if err != nil {
			return 0, fmt.Errorf("must be a number of seconds")
		}
		d = time.Duration(secs * float64(time.Second))
	default:
		return 0, fmt.Errorf("must be a duration string or a number of seconds, got %s", v.kind)
	}
	if d <= 0 {
		return 0, fmt.Errorf("must be positive")
	}
	return d, nil
}

// maxRetentionDays bounds eventRetentionDays (about 100 years).
const maxRetentionDays = 36500

// parseDays reads a whole, positive number of days.
func parseDays(v *node, text []byte) (int, error) {
	if v.kind != kindNumber {
		return 0, fmt.Errorf("must be a number of days, got %s", v.kind)
	}
	raw := string(text[v.start:v.end])
	f, err := strconv.ParseFloat(raw, 64)
	switch {
	case err != nil || f < 1 || f > maxRetentionDays:
		return 0, fmt.Errorf("must be between 1 and %d days, got %s", maxRetentionDays, raw)
	case f != float64(int(f)):
		return 0, fmt.Errorf("must be a whole number of days, got %s", raw)
	}
	return int(f), nil
}
