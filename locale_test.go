package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/internal/testdaemon"
)

// TestNoLocaleErrorUnderCUTF8: with LANG=C.UTF-8 (Debian's and Docker's
// default), the tray binary logs no Fyne locale error (package
// ui/fynelocale), and the servers it starts still see LANG=C.UTF-8.
func TestNoLocaleErrorUnderCUTF8(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "lang")
	in := &instance{&testdaemon.Instance{T: t, Config: filepath.Join(dir, "mcp.json"), Data: filepath.Join(dir, "data"),
		Env: []string{"LANG=C.UTF-8", "LC_ALL=", "LC_MESSAGES=", "LANGUAGE="}}}
	in.FlagsFirst = []string{"--config", in.Config, "--data", in.Data}
	writeConfig(t, in.Config, map[string]any{"probe": map[string]any{
		"command": "sh", "args": []string{"-c", `printf %s "$LANG" >"$0.tmp" && mv "$0.tmp" "$0" && exec cat`, seen}}})
	in.Start()

	var lang []byte
	waitFor(t, "the server to write its LANG", func() bool {
		var err error
		lang, err = os.ReadFile(seen)
		return err == nil
	})
	if string(lang) != "C.UTF-8" {
		t.Errorf("the server saw LANG=%q, want C.UTF-8", lang)
	}
	stopInstance(t, in)
	if strings.Contains(in.Stderr.String(), "locale") {
		t.Errorf("mcptray logged a locale error:\n%s", in.Stderr)
	}
}
