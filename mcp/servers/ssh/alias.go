package ssh

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Alias is a named SSH destination. It never holds a secret: passwords,
// passphrases and sudo passwords are asked when needed and kept in RAM.
// The JSON form is what the keyring entry ssh/aliases holds (a list).
type Alias struct {
	Name             string `json:"name"`
	Host             string `json:"host"`
	Port             int    `json:"port"`
	User             string `json:"user"`
	Auth             string `json:"auth"`                          // key, password or agent
	KeyPath          string `json:"key_path,omitempty"`            // auth key: the private key file; "" = ~/.ssh/id_ed25519, id_ecdsa, id_rsa
	Sudo             string `json:"sudo"`                          // nopasswd, prompt or none
	AcceptNewHostKey bool   `json:"accept_new_host_key,omitempty"` // an unknown host's key is added to known_hosts
	Jump             string `json:"jump,omitempty"`                // another alias to connect through
}

// Auth methods and sudo modes.
const (
	AuthKey      = "key"
	AuthPassword = "password"
	AuthAgent    = "agent"

	SudoNoPasswd = "nopasswd"
	SudoPrompt   = "prompt"
	SudoNone     = "none"
)

var (
	authMethods = []string{AuthKey, AuthPassword, AuthAgent}
	sudoModes   = []string{SudoNoPasswd, SudoPrompt, SudoNone}
	aliasName   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	userName    = regexp.MustCompile(`^[A-Za-z0-9._][A-Za-z0-9._@-]{0,63}$`)
)

// AliasStore keeps the aliases. The ssh server reads it on every call, so
// a change made elsewhere (the CLI, the UI) counts at once. mcptray's
// implementation is the keyring entry ssh/aliases; its errors are shown to
// the assistant as they are, so they should say what is missing.
type AliasStore interface {
	Load() ([]Alias, error)
	Save([]Alias) error
}

// ErrNoAlias is returned (wrapped) for an alias name that is not stored.
var ErrNoAlias = errors.New("no such SSH alias")

// WithDefaults fills the fields left empty: port 22, auth key, sudo prompt.
func (a Alias) WithDefaults() Alias {
	if a.Port == 0 {
		a.Port = 22
	}
	if a.Auth == "" {
		a.Auth = AuthKey
	}
	if a.Sudo == "" {
		a.Sudo = SudoPrompt
	}
	return a
}

// Validate checks every field and says what is wrong with the first bad
// one.
func (a Alias) Validate() error {
	switch {
	case !aliasName.MatchString(a.Name):
		return fmt.Errorf("alias name %q must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", a.Name)
	case a.Host == "" || strings.ContainsAny(a.Host, " \t\r\n/@") || strings.HasPrefix(a.Host, "-"):
		return fmt.Errorf("alias %s: host %q must be a host name or IP address", a.Name, a.Host)
	case a.Port < 1 || a.Port > 65535:
		return fmt.Errorf("alias %s: port %d must be 1-65535", a.Name, a.Port)
	case !userName.MatchString(a.User):
		return fmt.Errorf("alias %s: user %q must be a user name", a.Name, a.User)
	case !slices.Contains(authMethods, a.Auth):
		return fmt.Errorf("alias %s: auth must be key, password or agent, got %q", a.Name, a.Auth)
	case a.KeyPath != "" && a.Auth != AuthKey:
		return fmt.Errorf("alias %s: a key path is only for auth key, not %s", a.Name, a.Auth)
	case !slices.Contains(sudoModes, a.Sudo):
		return fmt.Errorf("alias %s: sudo must be nopasswd, prompt or none, got %q", a.Name, a.Sudo)
	case a.Jump == a.Name:
		return fmt.Errorf("alias %s: cannot jump through itself", a.Name)
	case a.Jump != "" && !aliasName.MatchString(a.Jump):
		return fmt.Errorf("alias %s: jump %q is not an alias name", a.Name, a.Jump)
	}
	return nil
}

// Addr is host:port.
func (a Alias) Addr() string { return net.JoinHostPort(a.Host, strconv.Itoa(a.Port)) }

// Dest is user@host:port, for messages.
func (a Alias) Dest() string { return a.User + "@" + a.Addr() }

// key identifies the alias's connection settings: a pooled connection is
// reused only while its alias's key is the same.
func (a Alias) key() string {
	b, _ := json.Marshal(a)
	return string(b)
}

// findAlias returns the alias called name from list.
func findAlias(list []Alias, name string) (Alias, error) {
	for _, a := range list {
		if a.Name == name {
			return a.WithDefaults(), nil
		}
	}
	return Alias{}, fmt.Errorf("%w %q (list_aliases shows the aliases; add_alias adds one)", ErrNoAlias, name)
}

// checkJumps reports a jump through an unknown alias or a loop.
func checkJumps(list []Alias, a Alias) error {
	seen := map[string]bool{a.Name: true}
	for cur := a; cur.Jump != ""; {
		next, err := findAlias(list, cur.Jump)
		if err != nil {
			return fmt.Errorf("alias %s jumps through %q, which is not an alias", cur.Name, cur.Jump)
		}
		if seen[next.Name] {
			return fmt.Errorf("alias %s: its jump hosts make a loop through %s", a.Name, next.Name)
		}
		if len(seen) > maxJumps {
			return fmt.Errorf("alias %s: more than %d jump hosts", a.Name, maxJumps)
		}
		seen[next.Name] = true
		cur = next
	}
	return nil
}

// maxJumps bounds a chain of jump hosts.
const maxJumps = 4

// MemoryStore is an AliasStore in RAM, for tests and for running without a
// keyring. It is safe for concurrent use.
type MemoryStore struct {
	mu   sync.Mutex // guards list
	list []Alias
}

// NewMemoryStore returns a MemoryStore holding list.
func NewMemoryStore(list ...Alias) *MemoryStore { return &MemoryStore{list: slices.Clone(list)} }

func (m *MemoryStore) Load() ([]Alias, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.list), nil
}

func (m *MemoryStore) Save(l []Alias) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.list = slices.Clone(l)
	return nil
}
