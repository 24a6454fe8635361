package ssh

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// exec limits.
const (
	defaultExecTimeout = 60 * time.Second
	maxExecTimeout     = 24 * time.Hour
)

type execIn struct {
	Alias    string `json:"alias" jsonschema:"the SSH alias to run on (list_aliases shows them)"`
	Command  string `json:"command" jsonschema:"the command line; it runs with bash -c (sh -c where the host has no bash)"`
	Sudo     bool   `json:"sudo,omitempty" jsonschema:"run as root through sudo (or as sudo_user); the sudo password, when needed, is asked from the person, never from you"`
	SudoUser string `json:"sudo_user,omitempty" jsonschema:"run as this user through sudo (implies sudo)"`
	TimeoutS int    `json:"timeout_s,omitempty" jsonschema:"seconds before the remote process is killed; default 60"`
	Cwd      string `json:"cwd,omitempty" jsonschema:"directory to run in; default the login directory"`
	Stdin    string `json:"stdin,omitempty" jsonschema:"text for the command's standard input"`
}

type execOut struct {
	ExitCode        int    `json:"exit_code" jsonschema:"the exit status; -1 when the command was killed or never reported one"`
	Signal          string `json:"signal,omitempty" jsonschema:"the signal that ended the command, if any"`
	Stdout          string `json:"stdout"`
	Stderr          string `json:"stderr"`
	StdoutBytes     int64  `json:"stdout_bytes" jsonschema:"bytes the command wrote to stdout in all"`
	StderrBytes     int64  `json:"stderr_bytes"`
	StdoutTruncated bool   `json:"stdout_truncated,omitempty"`
	StderrTruncated bool   `json:"stderr_truncated,omitempty"`
	TimedOut        bool   `json:"timed_out,omitempty" jsonschema:"the timeout passed and the remote process group was killed"`
	DurationMS      int64  `json:"duration_ms"`
	Note            string `json:"note,omitempty"`
}

var sudoUserRE = regexp.MustCompile(`^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$`)

func (s *Server) execTool(ctx context.Context, req *sdk.CallToolRequest, in execIn) (*sdk.CallToolResult, execOut, error) {
	if strings.TrimSpace(in.Command) == "" {
		return nil, execOut{}, errors.New("command is empty")
	}
	timeout := defaultExecTimeout
	if in.TimeoutS < 0 {
		return nil, execOut{}, fmt.Errorf("timeout_s must be positive, got %d", in.TimeoutS)
	}
	if in.TimeoutS > 0 {
		timeout = min(time.Duration(in.TimeoutS)*time.Second, maxExecTimeout)
	}
	if in.SudoUser != "" && !sudoUserRE.MatchString(in.SudoUser) {
		return nil, execOut{}, fmt.Errorf("sudo_user %q is not a user name", in.SudoUser)
	}
	t, err := s.open(ctx, s.asker(req), in.Alias)
	if err != nil {
		return nil, execOut{}, err
	}
	defer t.close()
	spec := runSpec{cmd: in.Command, cwd: in.Cwd, stdin: in.Stdin, timeout: timeout}
	if in.Sudo || in.SudoUser != "" {
		if spec.sudo, err = s.prepareSudo(ctx, t, in.SudoUser); err != nil {
			return nil, execOut{}, err
		}
	}
	res, err := s.run(ctx, t, spec)
	if err != nil {
		return nil, execOut{}, err
	}
	if err := s.checkStart(t, spec, res); err != nil {
		return nil, execOut{}, err
	}
	out := execOut{
		ExitCode:        res.exitCode,
		Signal:          res.signal,
		Stdout:          res.stdout.String(),
		Stderr:          res.stderr.String(),
		StdoutBytes:     res.stdout.Total(),
		StderrBytes:     res.stderr.Total(),
		StdoutTruncated: res.stdout.Truncated(),
		StderrTruncated: res.stderr.Truncated(),
		TimedOut:        res.timedOut,
		DurationMS:      res.duration.Milliseconds(),
	}
	var notes []string
	if out.StdoutTruncated {
		notes = append(notes, fmt.Sprintf("stdout truncated: the first %d of %d bytes are shown", len(out.Stdout), out.StdoutBytes))
	}
	if out.StderrTruncated {
		notes = append(notes, fmt.Sprintf("stderr truncated: the first %d of %d bytes are shown", len(out.Stderr), out.StderrBytes))
	}
	if res.timedOut {
		notes = append(notes, fmt.Sprintf("timed out after %s: the remote process group was killed", timeout))
	}
	out.Note = strings.Join(notes, "; ")
	s.log.Info("exec", "alias", t.alias.Name, "sudo", spec.sudo != nil, "exit", out.ExitCode, "timed_out", out.TimedOut, "ms", out.DurationMS)
	if res.timedOut {
		return &sdk.CallToolResult{IsError: true}, out, nil
	}
	return nil, out, nil
}

// runStarted runs spec and fails when the command did not start (see
// checkStart) or timed out.
func (s *Server) runStarted(ctx context.Context, t *target, spec runSpec) (*runResult, error) {
	res, err := s.run(ctx, t, spec)
	if err != nil {
		return nil, err
	}
	if err := s.checkStart(t, spec, res); err != nil {
		return nil, err
	}
	if res.timedOut {
		return nil, fmt.Errorf("the command on alias %s took longer than %s and was killed", t.alias.Name, spec.timeout)
	}
	return res, nil
}

// checkStart turns a command that never started into an error: a refused
// sudo password (dropped from the cache), sudo's refusal, or a missing
// directory.
func (s *Server) checkStart(t *target, spec runSpec, res *runResult) error {
	if res.started || res.timedOut {
		return nil
	}
	pre := strings.TrimSpace(res.pre)
	if spec.sudo != nil && spec.sudo.password != "" && isSudoComplaint(pre) {
		s.secrets.drop(t.alias.Name, sudoPassword)
		return fmt.Errorf("the sudo password for alias %s (%s) was wrong; nothing ran. The next call asks for it again", t.alias.Name, t.alias.User)
	}
	if res.exitCode == 126 && spec.cwd != "" && !strings.Contains(pre, "sudo") {
		return fmt.Errorf("cannot change to directory %s on alias %s: %s", spec.cwd, t.alias.Name, lastLine(pre))
	}
	if pre == "" {
		return fmt.Errorf("the command did not start on alias %s (exit %d)", t.alias.Name, res.exitCode)
	}
	if spec.sudo != nil {
		return fmt.Errorf("sudo on alias %s refused: %s", t.alias.Name, brief(pre))
	}
	return fmt.Errorf("the command did not start on alias %s: %s", t.alias.Name, brief(pre))
}

// brief joins the lines of s with "; " and cuts it at 500 bytes.
func brief(s string) string {
	s = strings.Join(strings.Fields(strings.ReplaceAll(strings.TrimSpace(s), "\n", " ; ")), " ")
	s = strings.ReplaceAll(s, " ; ", "; ")
	if len(s) > 500 {
		s = string(cutPartialRune([]byte(s[:500]))) + "…"
	}
	return s
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// prepareSudo decides how a command goes through sudo for the alias: none
// refuses, nopasswd uses sudo -n, prompt probes sudo -n true first and
// only asks for the password (cached, elicited) when sudo wants one.
func (s *Server) prepareSudo(ctx context.Context, t *target, user string) (*sudoRun, error) {
	a := t.alias
	switch a.Sudo {
	case SudoNone:
		return nil, fmt.Errorf("alias %s does not allow sudo (its sudo mode is none); a person can change that with `mcptray ssh alias add %s ... --sudo prompt`", a.Name, a.Name)
	case SudoNoPasswd:
		return &sudoRun{user: user}, nil
	}
	probe := "LC_ALL=C sudo -n"
	if user != "" {
		probe += " -u " + shellQuote(user)
	}
	res, err := s.run(ctx, t, runSpec{cmd: probe + " true", timeout: 30 * time.Second, maxOut: 4096})
	if err != nil {
		return nil, err
	}
	stderr := strings.TrimSpace(res.stderr.String())
	switch {
	case res.exitCode == 0:
		return &sudoRun{user: user}, nil // sudo needs no password here
	case res.exitCode == 127 || strings.Contains(stderr, "not found"):
		return nil, fmt.Errorf("sudo is not installed on alias %s", a.Name)
	case !strings.Contains(stderr, "password is required"):
		return nil, fmt.Errorf("sudo on alias %s refused: %s", a.Name, lastLine(stderr))
	}
	what := "to run a command as root"
	if user != "" {
		what = "to run a command as " + user
	}
	pw, err := s.secret(ctx, t.ask, prompt{alias: a, kind: sudoPassword, what: what})
	if err != nil {
		return nil, err
	}
	return &sudoRun{user: user, password: pw}, nil
}
