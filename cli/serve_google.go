package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// GoogleBinary is the executable that runs the Google servers: mcptray
// itself links no Google API client (cli/googleserve, docs/google-accounts.md).
const GoogleBinary = "mcptray-google"

// cmdServeGoogle is `mcptray serve gcal|gmail [--account EMAIL]`: it checks
// the command line as every command does (usage errors and --help are
// mcptray's), then runs the server through serve: in mcptray,
// execGoogle, which replaces this process with mcptray-google — same pid,
// same stdin and stdout, same environment (MCPTRAY_DATA and
// MCPTRAY_CONFIG, which the supervisor sets) — so the supervisor sees no
// difference.
func cmdServeGoogle(ctx context.Context, args []string, serve func(context.Context, []string) error) error {
	name := args[0]
	f := newFlags("serve " + name)
	f.String("account", "", "the default `EMAIL` of the tools (default: the first account added)")
	if err := parse(f, args[1:], 0); err != nil {
		return err
	}
	if serve == nil {
		serve = execGoogle
	}
	return serve(ctx, args)
}

// googleExecutable finds mcptray-google: beside this executable (symlinks
// resolved: bin/, /usr/bin), else on PATH. On Windows its file is
// mcptray-google.exe, and Windows has no execute bits (os.Stat reports
// none): a regular file of that name is it.
func googleExecutable() (string, error) {
	self, err := os.Executable()
	if err == nil {
		if real, rerr := filepath.EvalSymlinks(self); rerr == nil {
			self = real
		}
		name, runnable := GoogleBinary, fs.FileMode(0o111)
		if runtime.GOOS == "windows" {
			name, runnable = GoogleBinary+".exe", 0
		}
		p := filepath.Join(filepath.Dir(self), name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && (runnable == 0 || st.Mode()&runnable != 0) {
			return p, nil
		}
	}
	if p, err := exec.LookPath(GoogleBinary); err == nil {
		return p, nil
	}
	where := "this mcptray"
	if self != "" {
		where = filepath.Dir(self)
	}
	return "", errors.New("the Google servers run in " + GoogleBinary + ", which is neither in " + where +
		" nor on PATH: `make build` builds it beside bin/mcptray, and mcptray's packages install both")
}

// execGoogle runs mcptray-google serve ARGS in place of this process
// (execProcess: an exec where the system has one).
func execGoogle(_ context.Context, args []string) error {
	bin, err := googleExecutable()
	if err != nil {
		return err
	}
	if err := execProcess(bin, append([]string{bin, "serve"}, args...)); err != nil {
		return fmt.Errorf("starting %s: %w", bin, err)
	}
	return nil
}
