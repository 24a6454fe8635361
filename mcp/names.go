package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// MaxToolName is the longest tool name the gateway exposes; several clients
// reject longer ones.
const MaxToolName = 64

// nameSep joins a server's name and its tool's name.
const nameSep = "__"

// ToolName is the name under which the gateway exposes a server's tool:
// "<server>__<tool>", every character outside [A-Za-z0-9_-] replaced by '_',
// and, when that is longer than 64 characters, cut to 55 and ended with '_'
// and 8 hex digits of a hash of the original pair (stable across runs).
// Two tools that end up with the same name are told apart by the gateway
// (see assignNames); ToolName alone does not.
func ToolName(server, tool string) string {
	return fitName(sanitizeName(server)+nameSep+sanitizeName(tool), server+"\x00"+tool)
}

// singleName is a tool's name on a single-server route: the tool's own
// name, made to fit the same rules.
func singleName(tool string) string {
	return fitName(sanitizeName(tool), "\x00"+tool)
}

// sanitizeName replaces every character outside [A-Za-z0-9_-] by '_'.
func sanitizeName(s string) string {
	ok := true
	for i := 0; i < len(s); i++ {
		if !nameByte(s[i]) {
			ok = false
			break
		}
	}
	if ok && s != "" {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 && nameByte(byte(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// fitName shortens name to MaxToolName with a hash of key.
func fitName(name, key string) string {
	if len(name) <= MaxToolName {
		return name
	}
	return withHash(name, key)
}

// withHash is name cut short and ended with "_" and 8 hex digits of the
// hash of key, at most MaxToolName long.
func withHash(name, key string) string {
	sum := sha256.Sum256([]byte(key))
	h := hex.EncodeToString(sum[:4])
	if len(name) > MaxToolName-len(h)-1 {
		name = name[:MaxToolName-len(h)-1]
	}
	return name + "_" + h
}

// namer hands out exposed names in a fixed order, so the same inputs always
// get the same names: the first pair to want a name gets it, a later one
// gets the name with a hash suffix (and, should that be taken too, a
// counter). Each such collision is noted for the log.
type namer struct {
	taken      map[string]bool
	collisions []string // "a.b/c and a_b/c both want a_b__c: the second is a_b__c_1234abcd"
	first      map[string]string
}

func newNamer() *namer {
	return &namer{taken: map[string]bool{}, first: map[string]string{}}
}

// reserve takes a name that nothing else may have (built-in tools).
func (n *namer) reserve(name, owner string) {
	n.taken[name] = true
	n.first[name] = owner
}

// assign returns the name for the pair (server, item), given the name it
// wants.
func (n *namer) assign(want, server, item string) string {
	owner := server + "/" + item
	if !n.taken[want] {
		n.taken[want] = true
		n.first[want] = owner
		return want
	}
	name := withHash(want, server+"\x00"+item)
	for i := 2; n.taken[name]; i++ {
		name = withHash(want, fmt.Sprintf("%s\x00%s\x00%d", server, item, i))
	}
	n.taken[name] = true
	n.collisions = append(n.collisions, fmt.Sprintf("%s and %s both map to %s; the second is exposed as %s", n.first[want], owner, want, name))
	return name
}
