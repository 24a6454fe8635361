package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoLocaleErrorUnderCUTF8: with LANG=C.UTF-8 (Debian's and Docker's
// default), the tray binary logs no Fyne locale error (package
// ui/fynelocale), and the servers it starts still see LANG=C.UTF-8.
func TestNoLocaleErrorUnderCUTF8(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "lang")
	in := &instance{t: t, config: filepath.Join(dir, "mcp.json"), data: filepath.Join(dir, "data"),
		env: []string{"LANG=C.UTF-8", "LC_ALL=", "LC_MESSAGES=", "LANGUAGE="}}
	in.flagsFirst = []string{"--config", in.config, "--data", in.data}
	writeConfig(t, in.config, map[string]any{"probe": map[string]any{
		"command": "sh", "args": []string{"-c", `printf %s "$LANG" >"$0.tmp" && mv "$0.tmp" "$0" && exec cat`, seen}}})
	in.start()

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
	if strings.Contains(in.stderr.String(), "locale") {
		t.Errorf("mcptray logged a locale error:\n%s", in.stderr)
	}
}
