package loginenv

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Timeout is how long Read waits for the login shell by default.
const Timeout = 5 * time.Second

// OverrideEnv overrides Wanted's rule: "on" (or 1, true) reads the login
// shell's environment whenever $SHELL is set, "off" (or 0, false) never;
// "auto" or unset leaves it to the rule.
const OverrideEnv = "MCPTRAY_LOGIN_SHELL"

// ResolvingEnv is set to 1 in the login shell Read runs, so that an rc
// file can skip slow or interactive parts (like VS Code's
// VSCODE_RESOLVING_ENVIRONMENT).
const ResolvingEnv = "MCPTRAY_RESOLVING_ENVIRONMENT"

// maxOutput bounds what Read keeps of the shell's output.
const maxOutput = 1 << 20

// prefixes and names are the allow-list: the variables, besides PATH, that
// version managers and package managers set up for the programs they put
// on PATH.
var (
	prefixes = []string{"NVM_", "ASDF_", "HOMEBREW_", "PYENV_", "RBENV_", "NODENV_", "FNM_", "VOLTA_", "SDKMAN_", "MISE_"}
	names    = []string{
		"VOLTA_HOME", "PNPM_HOME", "BUN_INSTALL", "DENO_INSTALL", "N_PREFIX", "NODE_PATH",
		"GOPATH", "GOROOT", "GOBIN", "CARGO_HOME", "RUSTUP_HOME",
		"GEM_HOME", "GEM_PATH", "JAVA_HOME", "PIPX_HOME", "PIPX_BIN_DIR", "UV_TOOL_BIN_DIR",
	}
	// secretish parts of a name keep it out even when its prefix is
	// allowed (HOMEBREW_GITHUB_API_TOKEN).
	secretish = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "AUTH", "CREDENTIAL"}
)

// Allowed reports whether the variable name is copied from the login shell:
// PATH, or a name of the allow-list that does not look like a secret.
func Allowed(name string) bool {
	if name == "PATH" {
		return true
	}
	for _, s := range secretish {
		if strings.Contains(name, s) {
			return false
		}
	}
	if slices.Contains(names, name) {
		return true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Decision is Wanted's answer: the shell to read, or why not.
type Decision struct {
	Shell string // the login shell ($SHELL) to read; "" for none
	Why   string // why it is read or not, for status and the docs' rule
}

// Wanted decides whether a long-running mcptray (run, daemon) reads the
// login shell's environment, from getenv (os.Getenv) and whether the
// process has a controlling terminal. The rule: MCPTRAY_LOGIN_SHELL=off
// never; $SHELL must be set to an absolute path; MCPTRAY_LOGIN_SHELL=on
// always then; else only without a controlling terminal (a terminal's
// environment already has the shell's PATH; CI has no terminal either,
// which is why stdin or stderr not being a TTY is not the test). Windows
// never reads one (proc_windows.go), whatever MCPTRAY_LOGIN_SHELL says.
func Wanted(getenv func(string) string) Decision {
	if noLoginShell != "" {
		return Decision{Why: noLoginShell}
	}
	override := strings.ToLower(strings.TrimSpace(getenv(OverrideEnv)))
	switch override {
	case "off", "0", "false", "no":
		return Decision{Why: OverrideEnv + "=" + override}
	}
	shell := getenv("SHELL")
	if shell == "" || !filepath.IsAbs(shell) {
		return Decision{Why: "$SHELL is not set to an absolute path"}
	}
	switch override {
	case "on", "1", "true", "yes":
		return Decision{Shell: shell, Why: OverrideEnv + "=" + override}
	}
	if hasControllingTerminal() {
		return Decision{Why: "started from a terminal: its environment is the shell's"}
	}
	return Decision{Shell: shell, Why: "started without a terminal"}
}

// Read runs shell as an interactive login shell (`shell -ilc`) that prints
// its environment with `env -0` between two markers, and returns PATH and
// the allowed variables (Allowed) it printed. It waits at most timeout
// (Timeout when 0), then ends the shell's process group (killGroup: SIGTERM, then SIGKILL). Junk the shell's
// rc files print around the environment is ignored; no marked environment,
// or one without PATH, is an error. Errors never carry a value.
func Read(ctx context.Context, shell string, timeout time.Duration) (map[string]string, error) {
	if timeout <= 0 {
		timeout = Timeout
	}
	var id [12]byte
	rand.Read(id[:])
	mark := "__MCPTRAY_ENV_" + hex.EncodeToString(id[:]) + "__"
	script := "printf '%s' " + mark + "; env -0; printf '%s' " + mark

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, shell, "-ilc", script)
	cmd.Env = append(os.Environ(), ResolvingEnv+"=1")
	cmd.Stdin = nil // /dev/null
	out := &capped{max: maxOutput}
	cmd.Stdout = out
	cmd.Stderr = nil // an interactive shell without a terminal complains; never shown
	setGroup(cmd)
	// The context's end kills the whole group: rc files may start
	// children that hold stdout open, so waiting stops soon after.
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 500 * time.Millisecond
	err := cmd.Run()
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s did not print its environment within %s", shell, timeout)
		}
		return nil, ctx.Err()
	}
	vars, perr := parse(out.Bytes(), mark)
	if perr != nil {
		if out.over {
			return nil, fmt.Errorf("%s printed more than %d MiB before its environment (rc files printing without end?)", shell, maxOutput>>20)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v, and it %v", shell, exitReason(err), perr)
		}
		return nil, fmt.Errorf("%s %v", shell, perr)
	}
	// A non-zero exit after printing (an rc file's last command failed)
	// still gave the environment.
	return vars, nil
}

// exitReason is err without the command's output.
func exitReason(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ProcessState.String()
	}
	return err.Error()
}

// parse takes the NUL-separated KEY=VALUE list between the first and the
// last mark in out, and keeps the allowed variables.
func parse(out []byte, mark string) (map[string]string, error) {
	m := []byte(mark)
	first := bytes.Index(out, m)
	last := bytes.LastIndex(out, m)
	if first < 0 || last == first {
		return nil, errors.New("printed no environment (is it a POSIX-like shell with env -0?)")
	}
	vars := map[string]string{}
	for _, kv := range bytes.Split(out[first+len(m):last], []byte{0}) {
		k, v, ok := bytes.Cut(kv, []byte("="))
		if !ok || len(k) == 0 {
			continue
		}
		name := string(k)
		if !Allowed(name) {
			continue
		}
		vars[name] = string(v)
	}
	if vars["PATH"] == "" {
		return nil, errors.New("printed an environment without PATH")
	}
	return vars, nil
}

// Apply returns env (KEY=VALUE entries, like os.Environ()) with vars from
// Read: PATH becomes the login shell's, followed by the entries of env's own
// PATH that it lacks (so nothing reachable before is lost); each other
// variable of vars replaces env's. The order of env is kept; new variables
// come last, sorted.
func Apply(env []string, vars map[string]string) []string {
	if len(vars) == 0 {
		return env
	}
	out := make([]string, 0, len(env)+len(vars))
	done := map[string]bool{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if done[k] {
			continue // a duplicate: the first one was replaced already
		}
		nv, ok := vars[k]
		if !ok {
			out = append(out, kv)
			continue
		}
		done[k] = true
		if k == "PATH" {
			nv = MergePath(nv, v)
		}
		out = append(out, k+"="+nv)
	}
	keys := make([]string, 0, len(vars))
	for k := range vars {
		if !done[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, k+"="+vars[k])
	}
	return out
}

// MergePath is login followed by the entries of own it lacks.
func MergePath(login, own string) string {
	have := map[string]bool{}
	list := filepath.SplitList(login)
	for _, d := range list {
		have[d] = true
	}
	for _, d := range filepath.SplitList(own) {
		if d != "" && !have[d] {
			have[d] = true
			list = append(list, d)
		}
	}
	return strings.Join(list, string(os.PathListSeparator))
}

// errCapped is what capped's Write returns once the output passed its cap.
var errCapped = errors.New("output over the cap")

// capped keeps the first max bytes written to it. A write past max keeps
// what fits and fails, so exec's copy stops and closes the pipe: the
// shell (and whatever still prints into it) gets EPIPE instead of mcptray
// buffering it. It has no ReadFrom, so io.Copy goes through Write.
type capped struct {
	buf  []byte
	max  int
	over bool // a write passed max
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.max - len(c.buf)
	if len(p) <= room {
		c.buf = append(c.buf, p...)
		return len(p), nil
	}
	c.buf = append(c.buf, p[:max(room, 0)]...)
	c.over = true
	return max(room, 0), errCapped
}

// Bytes is what was kept.
func (c *capped) Bytes() []byte { return c.buf }
