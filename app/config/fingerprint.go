package config

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"slices"
	"strconv"
)

// fingerprintKey keys the Fingerprint hash. A resolved spec may hold secrets
// (a keyring token in a header); keying the hash with a per-process random
// key means a fingerprint that ends up in a log or on screen cannot be used
// to guess them offline. Fingerprints are therefore comparable only within
// one process, which is all that deciding on a restart needs.
var fingerprintKey = func() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
}()

// Fingerprint is a stable hash of the effective (resolved) spec: type,
// command, args, env, cwd, url, headers, the OAuth client and per-entry settings but the
// gateway's own (Rules: a tool switched off restarts nothing). Two servers
// with equal fingerprints need no restart. Name and Disabled are not part of
// it; a refused entry fingerprints its Err text. An empty list or map counts
// as absent. Fingerprints compare only within one process (see
// fingerprintKey); do not store them.
func (s Server) Fingerprint() string {
	h := hmac.New(sha256.New, fingerprintKey)
	if s.Err != nil {
		field(h, "err", s.Err.Error())
		return hex.EncodeToString(h.Sum(nil)[:16])
	}
	field(h, "type", s.Type)
	field(h, "command", s.Command)
	field(h, "args", strconv.Itoa(len(s.Args)))
	for _, a := range s.Args {
		field(h, a)
	}
	field(h, "env", strconv.Itoa(len(s.Env)))
	for _, k := range sortedKeys(s.Env) {
		field(h, k, s.Env[k])
	}
	field(h, "cwd", s.Cwd)
	field(h, "url", s.URL)
	field(h, "headers", strconv.Itoa(len(s.Headers)))
	for _, k := range sortedKeys(s.Headers) {
		field(h, k, s.Headers[k])
	}
	if o := s.OAuth; o != nil {
		field(h, "oauth", o.ClientID, o.ClientSecret, o.ClientMetadataURL, strconv.Itoa(o.CallbackPort), strconv.Itoa(len(o.Scopes)))
		field(h, o.Scopes...)
	}
	keys := slices.DeleteFunc(sortedKeys(s.Settings), func(k string) bool { return slices.Contains(ruleKeys, k) })
	field(h, "settings", strconv.Itoa(len(keys)))
	for _, k := range keys {
		field(h, k, string(s.Settings[k]))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// field writes each string with its length in front, so no two different
// sequences of strings hash the same bytes.
func field(h hash.Hash, strs ...string) {
	var n [binary.MaxVarintLen64]byte
	for _, s := range strs {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		h.Write([]byte(s))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
