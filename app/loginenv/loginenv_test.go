package loginenv

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeShell writes an executable shell script standing in for $SHELL.
func fakeShell(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fakesh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// A login shell whose rc files add a PATH entry and set a version
// manager's variables, and print a banner around what it is asked to run.
func TestReadAddsPathEntry(t *testing.T) {
	t.Setenv("PATH", "/usr/bin:/bin")
	sh := fakeShell(t, `
echo "Welcome to fakesh!"
printf 'junk\0with=nul\0'
[ "$1" = "-ilc" ] || exit 9
[ "$`+ResolvingEnv+`" = 1 ] || exit 8
export PATH="/opt/fake-nvm/bin:$PATH"
export NVM_DIR=/opt/fake-nvm VOLTA_HOME=/opt/volta
export HOMEBREW_GITHUB_API_TOKEN=hush UNRELATED=x
export ASDF_DIR='/a dir/with
a newline'
eval "$2"
echo bye
exit 3
`)
	vars, err := Read(context.Background(), sh, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"PATH":       "/opt/fake-nvm/bin:/usr/bin:/bin",
		"NVM_DIR":    "/opt/fake-nvm",
		"VOLTA_HOME": "/opt/volta",
		"ASDF_DIR":   "/a dir/with\na newline",
	}
	for k, v := range want {
		if vars[k] != v {
			t.Errorf("%s = %q, want %q", k, vars[k], v)
		}
	}
	for _, k := range []string{"HOMEBREW_GITHUB_API_TOKEN", "UNRELATED", "HOME", "with"} {
		if _, ok := vars[k]; ok {
			t.Errorf("%s was copied; only PATH and the allow-list may be", k)
		}
	}
}

// A shell that hangs (and leaves a child holding its stdout) is killed at
// the timeout, group and all.
func TestReadHangs(t *testing.T) {
	sh := fakeShell(t, "sleep 60 &\nexec sleep 60\n")
	begun := time.Now()
	_, err := Read(context.Background(), sh, 200*time.Millisecond)
	took := time.Since(begun)
	if err == nil || !strings.Contains(err.Error(), "did not print its environment within 200ms") {
		t.Errorf("error %v, want a timeout", err)
	}
	// The timeout, plus WaitDelay at worst: never the sleeps.
	if took > 5*time.Second {
		t.Errorf("Read took %s with a 200ms timeout", took)
	}
}

// A shell that prints garbage (no marked environment) is an error that
// quotes none of it.
func TestReadGarbage(t *testing.T) {
	sh := fakeShell(t, `head -c 4096 /dev/urandom; printf 'PATH=/evil\0SECRET=s3cret\0'; exit 1`+"\n")
	_, err := Read(context.Background(), sh, 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "printed no environment") {
		t.Fatalf("error %v, want printed no environment", err)
	}
	if strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "/evil") {
		t.Errorf("the error quotes the output: %v", err)
	}
	// A marked environment without PATH is refused too.
	sh = fakeShell(t, `unset PATH; /usr/bin/env -i /bin/sh -c "$2"`+"\n")
	if _, err := Read(context.Background(), sh, 5*time.Second); err == nil || !strings.Contains(err.Error(), "without PATH") {
		t.Errorf("error %v, want an environment without PATH", err)
	}
}

func TestReadNoShell(t *testing.T) {
	if _, err := Read(context.Background(), filepath.Join(t.TempDir(), "nosh"), time.Second); err == nil {
		t.Error("no error for a missing shell")
	}
}

func TestAllowed(t *testing.T) {
	for name, want := range map[string]bool{
		"PATH": true, "NVM_DIR": true, "NVM_BIN": true, "ASDF_DATA_DIR": true, "HOMEBREW_PREFIX": true,
		"PYENV_ROOT": true, "VOLTA_HOME": true, "PNPM_HOME": true, "GOPATH": true,
		"HOMEBREW_GITHUB_API_TOKEN": false, "NVM_AUTH_HEADER": false, "HOME": false, "AWS_SECRET_ACCESS_KEY": false,
		"LD_PRELOAD": false, "SHELL": false, "DISPLAY": false,
	} {
		if Allowed(name) != want {
			t.Errorf("Allowed(%s) = %v", name, !want)
		}
	}
}

func TestApply(t *testing.T) {
	env := []string{"HOME=/h", "PATH=/usr/bin:/opt/own/bin", "NVM_DIR=/old", "PATH=/dup"}
	got := Apply(env, map[string]string{"PATH": "/n/bin:/usr/bin", "NVM_DIR": "/new", "VOLTA_HOME": "/v", "ASDF_DIR": "/a"})
	want := []string{"HOME=/h", "PATH=/n/bin:/usr/bin:/opt/own/bin", "NVM_DIR=/new", "ASDF_DIR=/a", "VOLTA_HOME=/v"}
	if !slices.Equal(got, want) {
		t.Errorf("Apply:\n%q\nwant\n%q", got, want)
	}
	if got := Apply(env, nil); !slices.Equal(got, env) {
		t.Errorf("Apply with nothing read changed the environment: %q", got)
	}
}

func TestWanted(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	if d := Wanted(env("SHELL", "/bin/zsh", OverrideEnv, "off")); d.Shell != "" {
		t.Errorf("off: %+v", d)
	}
	if d := Wanted(env(OverrideEnv, "on")); d.Shell != "" {
		t.Errorf("on without $SHELL: %+v", d)
	}
	if d := Wanted(env("SHELL", "zsh", OverrideEnv, "on")); d.Shell != "" {
		t.Errorf("on with a relative $SHELL: %+v", d)
	}
	if d := Wanted(env("SHELL", "/bin/zsh", OverrideEnv, "1")); d.Shell != "/bin/zsh" {
		t.Errorf("on: %+v", d)
	}
	d := Wanted(env("SHELL", "/bin/zsh"))
	if (d.Shell == "") != hasControllingTerminal() {
		t.Errorf("auto with a controlling terminal %v: %+v", hasControllingTerminal(), d)
	}
}
