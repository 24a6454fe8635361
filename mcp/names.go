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
// On an aggregate route the prefix comes from serverPrefixes, which tells
// apart servers whose names sanitise alike; toolName is the plain form.
func toolName(server, tool string) string {
	return prefixedName(sanitizeName(server)+nameSep, server, tool)
}

// prefixedName is item's name under a server's prefix, made to fit.
func prefixedName(prefix, server, item string) string {
	return fitName(prefix+sanitizeName(item), server+"\x00"+item)
}

// serverPrefixes gives each of servers (in file order) the prefix of its
// names on an aggregate route: its sanitised name and "__", or, for a
// server whose name sanitises like an earlier one's (a_b after a.b), its
// sanitised name, '_', 8 hex digits of a hash of its name, and "__"
// (a_b_1234abcd__). No prefix begins another server's names unless it is
// longer (shadowing, below), so who owns a prefixed name follows from the
// configured names alone: never from which server listed it first. Each
// hashed prefix is noted for the log.
func serverPrefixes(servers []string) (map[string]string, []string) {
	out := make(map[string]string, len(servers))
	taken := make(map[string]string, len(servers))
	var notes []string
	for _, s := range servers {
		n := sanitizeName(s)
		p := n + nameSep
		if first, dup := taken[p]; dup {
			for i := 1; taken[p] != ""; i++ {
				key := s
				if i > 1 {
					key = fmt.Sprintf("%s\x00%d", s, i)
				}
				p = n + "_" + hash8(key) + nameSep
			}
			notes = append(notes, fmt.Sprintf("servers %s and %s both sanitise to %s; the tools and prompts of %s, later in the file, are named %s…", first, s, n, s, p))
		}
		taken[p] = s
		out[s] = p
	}
	return out, notes
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
	h := hash8(key)
	if len(name) > maxToolName-len(h)-1 {
		name = name[:maxToolName-len(h)-1]
	}
	return name + "_" + h
}

// hash8 is 8 hex digits of the SHA-256 of key.
func hash8(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:4])
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
// b__pid or server a__b's tool pid, and "a___b" server a's tool _b or
// server a_'s tool b. A prefixed name is resolved by the longest server
// prefix it starts with (a__b's, a_'s), whether that server runs or not
// and whatever it lists: a shorter one's tool that would get the name is
// not exposed, and a call to the name while the longer server does not
// serve it is refused with both readings. The shorter server's tool stays
// callable on its own route, unprefixed. So a name never passes from one
// server to another, however the servers order, time or rename their
// tools, and the rule needs no memory: it comes out the same after a
// restart.

// prefixed is a server whose prefix can also begin another server's
// prefixed names.
type prefixed struct {
	server string
	prefix string // from serverPrefixes
}

// nestedServers picks, from servers, the ones whose prefix could begin
// another server's prefixed names: the prefix holds nameSep before its
// end ("a__b__", or "a___" of a name ending in '_'). It is empty unless
// such a name is configured, so the usual sync does no more work.
func nestedServers(servers []string, prefixes map[string]string) []prefixed {
	var out []prefixed
	for _, s := range servers {
		if p := prefixes[s]; strings.Contains(p[:len(p)-1], nameSep) {
			out = append(out, prefixed{s, p})
		}
	}
	return out
}

// shadowedBy returns the server, other than server (whose prefix is own),
// that the exposed name of server's tool resolves to: the one with the
// longest prefix that name starts with, when that prefix is longer than
// own.
func shadowedBy(nested []prefixed, server, own, name string) (prefixed, bool) {
	var best prefixed
	for _, n := range nested {
		if n.server != server && len(n.prefix) > len(own) && len(n.prefix) > len(best.prefix) && strings.HasPrefix(name, n.prefix) {
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
