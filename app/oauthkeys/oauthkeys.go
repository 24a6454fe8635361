package oauthkeys

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/mcp/oauthclient"
)

// PartBytes is the most a keyring entry of this package holds: below
// Windows' 2,560 bytes, and below macOS's ≈ 3,000 once go-keyring has
// base64-encoded it.
const PartBytes = 2000

// maxParts bounds a head's count (a token set is a few kilobytes).
const maxParts = 64

const (
	prefix     = "oauth/"
	partPrefix = "oauth-part/"
	headMark   = "mcptray-parts:"
)

// kv is the keyring as this package uses it (app/keyring; a map in tests).
type kv interface {
	Get(name string) (string, error)
	Set(name, value string) error
	Delete(name string) error
}

type appKeyring struct{}

func (appKeyring) Get(n string) (string, error) { return keyring.Get(n) }
func (appKeyring) Set(n, v string) error        { return keyring.Set(n, v) }
func (appKeyring) Delete(n string) error        { return keyring.Delete(n) }

// Store is oauthclient.Store on the OS keyring.
type Store struct {
	kv kv // nil: app/keyring
}

func (s Store) keyring() kv {
	if s.kv == nil {
		return appKeyring{}
	}
	return s.kv
}

func partName(key string, i int) string { return partPrefix + strconv.Itoa(i) + "/" + key }

// Get reads key's value, joining its parts.
func (s Store) Get(key string) (string, error) {
	if key == "" {
		return "", errors.New("oauth keyring entry name is empty")
	}
	v, err := s.get(key)
	if errors.Is(err, errTorn) {
		v, err = s.get(key) // a write was under way: once more
	}
	return v, err
}

var errTorn = errors.New("the keyring's parts of the value do not match its head (a write was interrupted); sign in again")

func (s Store) get(key string) (string, error) {
	kr := s.keyring()
	head, err := kr.Get(prefix + key)
	if err != nil {
		return "", storeError(err)
	}
	n, sum, ok := parseHead(head)
	if !ok {
		return head, nil
	}
	var b strings.Builder
	for i := 1; i <= n; i++ {
		p, err := kr.Get(partName(key, i))
		if errors.Is(err, keyring.ErrNotFound) {
			return "", errTorn
		}
		if err != nil {
			return "", storeError(err)
		}
		b.WriteString(p)
	}
	v := b.String()
	if digest(v) != sum {
		return "", errTorn
	}
	return v, nil
}

// Set stores value under key, split when it is longer than PartBytes (or
// could be read as a head).
func (s Store) Set(key, value string) error {
	if key == "" {
		return errors.New("oauth keyring entry name is empty")
	}
	kr := s.keyring()
	oldParts := s.partCount(key)
	if len(value) <= PartBytes && !strings.HasPrefix(value, headMark) {
		if err := kr.Set(prefix+key, value); err != nil {
			return storeError(err)
		}
		s.deleteParts(key, 1, oldParts)
		return nil
	}
	parts := split(value, PartBytes)
	if len(parts) > maxParts {
		return fmt.Errorf("the value is too large for the keyring (%d bytes)", len(value))
	}
	for i, p := range parts {
		if err := kr.Set(partName(key, i+1), p); err != nil {
			return storeError(err)
		}
	}
	if err := kr.Set(prefix+key, headMark+strconv.Itoa(len(parts))+":"+digest(value)); err != nil {
		return storeError(err)
	}
	s.deleteParts(key, len(parts)+1, oldParts)
	return nil
}

// Delete removes key and its parts; a missing key is not an error.
func (s Store) Delete(key string) error {
	if key == "" {
		return errors.New("oauth keyring entry name is empty")
	}
	n := s.partCount(key)
	if err := s.keyring().Delete(prefix + key); err != nil && !errors.Is(err, keyring.ErrNotFound) {
		return storeError(err)
	}
	s.deleteParts(key, 1, n)
	return nil
}

// partCount is how many parts key's head names (0: none, or no head).
func (s Store) partCount(key string) int {
	head, err := s.keyring().Get(prefix + key)
	if err != nil {
		return 0
	}
	n, _, _ := parseHead(head)
	return n
}

// deleteParts deletes parts from..to of key, best effort (a leftover part
// is unreachable: no head names it).
func (s Store) deleteParts(key string, from, to int) {
	for i := from; i <= to; i++ {
		s.keyring().Delete(partName(key, i))
	}
}

// parseHead reads "mcptray-parts:N:SHA256".
func parseHead(v string) (n int, sum string, ok bool) {
	rest, ok := strings.CutPrefix(v, headMark)
	if !ok {
		return 0, "", false
	}
	ns, sum, ok := strings.Cut(rest, ":")
	n, err := strconv.Atoi(ns)
	if !ok || err != nil || n < 1 || n > maxParts || len(sum) != 64 {
		return 0, "", false
	}
	return n, sum, true
}

func digest(v string) string {
	h := sha256.Sum256([]byte(v))
	return hex.EncodeToString(h[:])
}

// split cuts v into pieces of at most max bytes, between characters.
func split(v string, max int) []string {
	var out []string
	for len(v) > max {
		i := max
		for i > 0 && !utf8.RuneStart(v[i]) {
			i--
		}
		out = append(out, v[:i])
		v = v[i:]
	}
	return append(out, v)
}

// storeError maps app/keyring's errors to what mcp/oauthclient expects:
// ErrNotFound for a missing entry, an unavailable keyring's reason alone.
func storeError(err error) error {
	var ue *keyring.UnavailableError
	switch {
	case errors.Is(err, keyring.ErrNotFound):
		return oauthclient.ErrNotFound
	case errors.As(err, &ue):
		return ue
	case errors.Is(err, keyring.ErrTooLarge):
		return errors.New("the value is too large for this system's keyring")
	}
	return err
}
