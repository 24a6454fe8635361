package config

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// ToolRules are an entry's settings on its tools (DESIGN.md §14), from its
// "x-mcptray" object. They concern the gateway only: a change to them
// restarts nothing (Fingerprint leaves them out).
type ToolRules struct {
	// DisabledTools are globs (path.Match) of the tools that are off: not
	// listed to assistants, and refused when called ("disabledTools").
	DisabledTools []string
	// AllowTools are globs of the tools that never ask before a call
	// ("allowTools"; the inbox's "Always" adds to it).
	AllowTools []string
	// Approve is the entry's own approval mode ("approve"): one of the
	// Approve* constants; "" takes the top-level one.
	Approve string
	// PinTools is false when the entry turns off pinned tool descriptions
	// ("pinTools": false); nil or true pins them.
	PinTools *bool
}

// Approval modes of "x-mcptray".approve: which tool calls wait for the
// person's yes.
const (
	ApproveOff         = "off"         // none
	ApproveDestructive = "destructive" // tools that may destroy data: not readOnlyHint: true nor destructiveHint: false (the default)
	ApproveWrites      = "writes"      // every tool not annotated readOnlyHint: true
	ApproveAll         = "all"         // every call
)

// DefaultApprove is the approval mode when none is set.
const DefaultApprove = ApproveDestructive

var approveModes = []string{ApproveOff, ApproveDestructive, ApproveWrites, ApproveAll}

// Keys of an entry's "x-mcptray" that are ToolRules.
const (
	keyDisabledTools = "disabledTools"
	keyAllowTools    = "allowTools"
	keyApprove       = "approve"
	keyPinTools      = "pinTools"
)

// ruleKeys are left out of Fingerprint: the gateway applies them to a
// running server.
var ruleKeys = []string{keyDisabledTools, keyAllowTools, keyApprove, keyPinTools}

// ToolOff reports whether tool is turned off, and by which glob.
func (r ToolRules) ToolOff(tool string) (glob string, off bool) {
	return matchAny(r.DisabledTools, tool)
}

// ToolAllowed reports whether calls of tool never ask (allowTools).
func (r ToolRules) ToolAllowed(tool string) bool {
	_, ok := matchAny(r.AllowTools, tool)
	return ok
}

// Pins reports whether the entry's tool descriptions are pinned.
func (r ToolRules) Pins() bool { return r.PinTools == nil || *r.PinTools }

// matchAny returns the first glob of globs that matches name. A glob is
// read as path.Match reads it, and only so: the glob "w*" matches a tool
// named "w*" because it matches every name starting with w, and `w\*`
// (ExactGlob's) matches only the tool named "w*". A glob that path.Match
// cannot read matches only itself.
func matchAny(globs []string, name string) (string, bool) {
	for _, g := range globs {
		ok, err := path.Match(g, name)
		if err != nil {
			ok = g == name
		}
		if ok {
			return g, true
		}
	}
	return "", false
}

// ExactGlob is the glob that matches the tool name and no other: name with
// each of path.Match's special characters (* ? [ \) escaped by a
// backslash. What mcptray writes itself into allowTools ("Always") and
// disabledTools (a tool's switch) is a tool's ExactGlob, so that a server
// that names a tool "*" or "w*" cannot have its name read as a pattern
// over its other tools.
func ExactGlob(name string) string {
	if !strings.ContainsAny(name, `*?[\`) {
		return name
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ { // bytes: a name that is not UTF-8 stays as it is
		if c := name[i]; c == '*' || c == '?' || c == '[' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(name[i])
	}
	return b.String()
}

// parseRules reads the ToolRules of an entry's "x-mcptray" object n.
func parseRules(n *node, text []byte) (ToolRules, error) {
	var r ToolRules
	for _, m := range n.members {
		v := m.value
		switch m.key {
		case keyDisabledTools, keyAllowTools:
			list, err := stringList(v, text, "x-mcptray."+m.key)
			if err != nil {
				return r, err
			}
			if m.key == keyDisabledTools {
				r.DisabledTools = list
			} else {
				r.AllowTools = list
			}
		case keyApprove:
			if v.kind != kindString || !slices.Contains(approveModes, v.str(text)) {
				return r, fmt.Errorf("x-mcptray.approve must be %s, got %s", quotedList(approveModes), v.raw(text))
			}
			r.Approve = v.str(text)
		case keyPinTools:
			if v.kind != kindBool {
				return r, fmt.Errorf("x-mcptray.pinTools must be true or false, got %s", v.kind)
			}
			b := v.boolean(text)
			r.PinTools = &b
		}
	}
	return r, nil
}

// stringList reads an array of strings.
func stringList(v *node, text []byte, what string) ([]string, error) {
	if v.kind != kindArray {
		return nil, fmt.Errorf("%s must be an array of strings, got %s", what, v.kind)
	}
	out := make([]string, 0, len(v.elems))
	for i, e := range v.elems {
		if e.kind != kindString {
			return nil, fmt.Errorf("%s[%d] must be a string, got %s", what, i, e.kind)
		}
		out = append(out, e.str(text))
	}
	return out, nil
}
