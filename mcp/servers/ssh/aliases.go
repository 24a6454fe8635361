package ssh

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The alias tools and the functions the CLI (`mcptray ssh alias …`) uses.

type listAliasesOut struct {
	Aliases []Alias `json:"aliases"`
}

// ListAliases returns the stored aliases, sorted by name, defaults filled.
func (s *Server) ListAliases() ([]Alias, error) {
	list, err := s.loadAliases()
	if err != nil {
		return nil, err
	}
	out := make([]Alias, 0, len(list))
	for _, a := range list {
		out = append(out, a.WithDefaults())
	}
	slices.SortFunc(out, func(a, b Alias) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func (s *Server) listAliasesTool(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, listAliasesOut, error) {
	list, err := s.ListAliases()
	return nil, listAliasesOut{Aliases: list}, err
}

type addAliasIn struct {
	Name             string `json:"name" jsonschema:"the alias name: letters, digits, '.', '_', '-'"`
	Host             string `json:"host" jsonschema:"host name or IP address"`
	Port             int    `json:"port,omitempty" jsonschema:"SSH port; default 22"`
	User             string `json:"user" jsonschema:"the remote user to log in as"`
	Auth             string `json:"auth,omitempty" jsonschema:"key (default), password or agent; a password is asked from the person when needed, never from you"`
	KeyPath          string `json:"key_path,omitempty" jsonschema:"private key file on this machine for auth key; default ~/.ssh/id_ed25519, id_ecdsa or id_rsa"`
	Sudo             string `json:"sudo,omitempty" jsonschema:"prompt (default: the sudo password is asked from the person), nopasswd (sudo -n) or none (no sudo)"`
	AcceptNewHostKey bool   `json:"accept_new_host_key,omitempty" jsonschema:"add the host's key to known_hosts on first connection; otherwise an unknown host is refused"`
	Jump             string `json:"jump,omitempty" jsonschema:"another alias to connect through (a jump host)"`
}

type aliasOut struct {
	Alias Alias  `json:"alias"`
	Note  string `json:"note,omitempty"`
}

// AddAlias stores a new alias; an existing name is refused unless replace.
// It returns a note about anything worth checking (a missing key file).
func (s *Server) AddAlias(a Alias, replace bool) (Alias, string, error) {
	a = a.WithDefaults()
	if err := a.Validate(); err != nil {
		return a, "", err
	}
	s.aliasMu.Lock()
	defer s.aliasMu.Unlock()
	list, err := s.loadAliases()
	if err != nil {
		return a, "", err
	}
	i := slices.IndexFunc(list, func(x Alias) bool { return x.Name == a.Name })
	if i >= 0 && !replace {
		return a, "", fmt.Errorf("alias %s exists already (remove it first to change it)", a.Name)
	}
	next := slices.Clone(list)
	if i >= 0 {
		next[i] = a
	} else {
		next = append(next, a)
	}
	if err := checkJumps(next, a); err != nil {
		return a, "", err
	}
	if err := s.opts.Aliases.Save(next); err != nil {
		return a, "", fmt.Errorf("storing the SSH aliases: %w", err)
	}
	s.pool.drop(a.Name)
	s.secrets.drop(a.Name, "")
	var note string
	if a.Auth == AuthKey && a.KeyPath != "" {
		if _, err := os.Stat(expandHome(a.KeyPath, s.home)); err != nil {
			note = fmt.Sprintf("the key file %s does not exist (yet)", a.KeyPath)
		}
	}
	return a, note, nil
}

func (s *Server) addAliasTool(_ context.Context, _ *sdk.CallToolRequest, in addAliasIn) (*sdk.CallToolResult, aliasOut, error) {
	a, note, err := s.AddAlias(Alias(in), false)
	if err != nil {
		return nil, aliasOut{}, err
	}
	return nil, aliasOut{Alias: a, Note: note}, nil
}

type removeAliasIn struct {
	Name string `json:"name" jsonschema:"the alias to remove"`
}

type removeAliasOut struct {
	Removed string `json:"removed"`
}

// RemoveAlias deletes an alias, closing its connection and forgetting its
// secrets. An alias that others jump through is refused.
func (s *Server) RemoveAlias(name string) error {
	s.aliasMu.Lock()
	defer s.aliasMu.Unlock()
	list, err := s.loadAliases()
	if err != nil {
		return err
	}
	i := slices.IndexFunc(list, func(x Alias) bool { return x.Name == name })
	if i < 0 {
		return fmt.Errorf("%w %q", ErrNoAlias, name)
	}
	for _, x := range list {
		if x.Jump == name {
			return fmt.Errorf("alias %s is the jump host of %s; remove or change that first", name, x.Name)
		}
	}
	if err := s.opts.Aliases.Save(slices.Delete(slices.Clone(list), i, i+1)); err != nil {
		return fmt.Errorf("storing the SSH aliases: %w", err)
	}
	s.pool.drop(name)
	s.secrets.drop(name, "")
	return nil
}

func (s *Server) removeAliasTool(_ context.Context, _ *sdk.CallToolRequest, in removeAliasIn) (*sdk.CallToolResult, removeAliasOut, error) {
	if err := s.RemoveAlias(in.Name); err != nil {
		return nil, removeAliasOut{}, err
	}
	return nil, removeAliasOut{Removed: in.Name}, nil
}

type testAliasIn struct {
	Name string `json:"name" jsonschema:"the alias to test"`
}

// TestResult is what test_alias and `mcptray ssh alias test` report.
type TestResult struct {
	Alias         Alias      `json:"alias"`
	Connected     bool       `json:"connected"`
	Auth          string     `json:"auth,omitempty" jsonschema:"the login method that worked"`
	ServerVersion string     `json:"server_version,omitempty"`
	HostKey       HostKey    `json:"host_key"`
	Sudo          SudoStatus `json:"sudo"`
	Error         string     `json:"error,omitempty"`
}

// HostKey is the host key the server presented and how it was judged.
type HostKey struct {
	Status      string `json:"status" jsonschema:"known, added (new; the alias accepts new keys), unknown (refused), changed (refused) or not-reached"`
	Type        string `json:"type,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
}

// SudoStatus says whether sudo would work, found without running anything
// as root (sudo -n -v).
type SudoStatus struct {
	Mode   string `json:"mode" jsonschema:"the alias's sudo mode"`
	Status string `json:"status" jsonschema:"off, no-password, password-needed, not-installed, refused or unknown"`
	Detail string `json:"detail,omitempty"`
}

// Ask asks a person for a secret (the CLI prompts on the terminal).
type Ask func(ctx context.Context, message string) (string, error)

// TestAlias connects to the alias afresh and reports the login method,
// the host key and whether sudo would work, without running anything as
// root. A failed connection is reported in the result (Error) with what
// was seen of the host key; err is only for an alias that cannot be read.
func (s *Server) TestAlias(ctx context.Context, name string, ask Ask) (TestResult, error) {
	var a asker
	if ask != nil {
		a = func(ctx context.Context, p prompt) (string, error) { return ask(ctx, p.message()) }
	}
	return s.testAlias(ctx, name, a)
}

func (s *Server) testAlias(ctx context.Context, name string, ask asker) (TestResult, error) {
	list, err := s.loadAliases()
	if err != nil {
		return TestResult{}, err
	}
	a, err := findAlias(list, name)
	if err != nil {
		return TestResult{}, err
	}
	res := TestResult{Alias: a, HostKey: HostKey{Status: hostKeyNone}, Sudo: SudoStatus{Mode: a.Sudo, Status: "unknown"}}
	s.pool.drop(a.Name)
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute+handshakeTimeout)
	defer cancel()
	t, err := s.open(ctx, ask, name)
	var ni *needInput
	if errors.As(err, &ni) {
		return TestResult{}, err
	}
	if err != nil {
		var de *dialError
		if errors.As(err, &de) {
			res.HostKey = de.check.public()
		}
		res.Error = err.Error()
		return res, nil
	}
	defer t.close()
	res.Connected = true
	res.Auth = t.c.d.auth
	res.ServerVersion = string(t.c.d.client.ServerVersion())
	res.HostKey = t.c.d.hostKey.public()
	if a.Sudo == SudoNone {
		res.Sudo.Status, res.Sudo.Detail = "off", "sudo is off for this alias"
		return res, nil
	}
	r, err := s.run(ctx, t, runSpec{
		cmd:     `command -v sudo >/dev/null 2>&1 || exit 99; LC_ALL=C sudo -n -v`,
		timeout: 30 * time.Second, maxOut: 4096,
	})
	if err != nil {
		res.Sudo.Detail = err.Error()
		return res, nil
	}
	stderr := strings.TrimSpace(r.stderr.String())
	switch {
	case r.exitCode == 0:
		res.Sudo.Status, res.Sudo.Detail = "no-password", "sudo -n works: no password is needed"
	case r.exitCode == 99:
		res.Sudo.Status, res.Sudo.Detail = "not-installed", "sudo is not installed on the host"
	case strings.Contains(stderr, "password is required"):
		res.Sudo.Status, res.Sudo.Detail = "password-needed", "sudo needs the password, which mcptray asks for when a command uses sudo"
		if a.Sudo == SudoNoPasswd {
			res.Sudo.Detail = "sudo needs a password, but the alias says nopasswd: its sudo commands will fail; set sudo to prompt"
		}
	default:
		res.Sudo.Status, res.Sudo.Detail = "refused", lastLine(stderr)
	}
	return res, nil
}

func (s *Server) testAliasTool(ctx context.Context, req *sdk.CallToolRequest, in testAliasIn) (*sdk.CallToolResult, TestResult, error) {
	res, err := s.testAlias(ctx, in.Name, s.asker(req))
	if err != nil {
		return nil, TestResult{}, err
	}
	if !res.Connected {
		return &sdk.CallToolResult{IsError: true}, res, nil
	}
	return nil, res, nil
}

// dialError is a failed handshake, with what was seen of the host key.
type dialError struct {
	check *hostKeyCheck
	err   error
}

func (e *dialError) Error() string { return e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

func (c *hostKeyCheck) public() HostKey {
	return HostKey{Status: c.status, Type: c.keyType, Fingerprint: c.fingerprint}
}
