package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// maxToolName is the longest tool name the gateway exposes; several clients
// reject longer ones.
const maxToolName = 64

// nameSep joins a server's name and its tool's name.
const nameSep = "__"

// toolName is the name under which the gateway exposes a server's tool:
// "<server>__<tool>", every character outside [A-Za-z0-9_-] replaced by '_',
// and, when that is longer than 64 characters, cut to 55 and ended with '_'
// and 8 hex digits of a hash of the original pair (stable across runs).
// Two tools that end up with the same name are told apart by the gateway
// (see assignNames); toolName alone does not.
func toolName(server, tool string) string {
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

// fitName shortens name to maxToolName with a hash of key.
func fitName(name, key string) string {
	if len(name) <= maxToolName {
		return name
	}
	return withHash(name, key)
}

// withHash is name cut short and ended with "_" and 8 hex digits of the
// hash of key, at most maxToolName long.
func withHash(name, key string) string {
	sum := sha256.Sum256([]byte(key))
	h := hex.EncodeToString(sum[:4])
	if len(name) > maxToolName-len(h)-1 {
		name = name[:maxToolName-len(h)-1]
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

// Shadowing: on an aggregate route "a__b__pid" could be server a's tool
// b__pid or server a__b's tool pid. A prefixed name is resolved by the
// longest configured server name it starts with (a__b here), whether that
// server runs or not; a shorter one's tool that would get the name is not
// exposed, and a call to the name while the longer server does not serve
// it is refused with both readings. The shorter server's tool stays
// callable on its own route, unprefixed.

// prefixed is a server whose sanitised name holds nameSep: the only kind
// whose prefix can also begin another server's prefixed names.
type prefixed struct {
	server string
	prefix string // sanitizeName(server) + nameSep
}

// nestedServers picks, from servers, the ones whose prefix could begin
// another server's prefixed names. It is empty unless a server's name
// holds "__", so the usual sync does no more work.
func nestedServers(servers []string) []prefixed {
	var out []prefixed
	for _, s := range servers {
		if n := sanitizeName(s); strings.Contains(n, nameSep) {
			out = append(out, prefixed{s, n + nameSep})
		}
	}
	return out
}

// shadowedBy returns the server, other than server, that the exposed
// name of server's tool resolves to: the one with the longest prefix
// that name starts with, when that prefix is longer than server's own.
func shadowedBy(nested []prefixed, server, name string) (prefixed, bool) {
	own := len(sanitizeName(server)) + len(nameSep)
	var best prefixed
	for _, n := range nested {
		if n.server != server && len(n.prefix) > own && len(n.prefix) > len(best.prefix) && strings.HasPrefix(name, n.prefix) {
			best = n
		}
	}
	return best, best.prefix != ""
}

// shadowNote is the log line for a tool (or prompt) left out because its
// name belongs to owner.
func shadowNote(server, item, name string, owner prefixed) string {
	return fmt.Sprintf("%s/%s is not exposed as %s: that name resolves to server %s (the longest configured server name it begins with); call it as %s on the route of %s alone",
		server, item, name, owner.server, item, server)
}

// shadowText is the isError text for a call to such a name.
func shadowText(server, item, name string, owner prefixed) string {
	return fmt.Sprintf("The tool name %q is ambiguous: it could be server %q's tool %q or server %q's tool %q. "+
		"mcptray resolves a prefixed name by the longest configured server name, %q, which offers no tool %q now (it is turned off, not ready, or has no such tool). "+
		"To call server %q's tool, use %q on that server's own route (mcptray connect --server %s, or the HTTP path /mcp/%s); or rename one of the servers.",
		name, server, item, owner.server, strings.TrimPrefix(name, owner.prefix), owner.server, strings.TrimPrefix(name, owner.prefix),
		server, item, server, server)
}
