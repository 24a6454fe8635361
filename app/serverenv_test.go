package app

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcptray/mcptray/app/config"
)

// Every server learns where mcp.json and the data dir are (absolute, over
// what mcptray itself was started with), unless its entry says otherwise.
func TestServerEnvNamesConfigAndData(t *testing.T) {
	t.Setenv("MCPTRAY_DATA", "/somewhere/else")
	t.Setenv("MCPTRAY_CONFIG", "/elsewhere/mcp.json")
	dir := t.TempDir()
	t.Chdir(dir)
	c := &Core{opts: Options{ConfigPath: "mcp.json", DataDir: "data"}, instance: "i1"}
	env := c.serverEnv(config.Server{Command: "x"})
	for _, want := range []string{
		"MCPTRAY_CONFIG=" + filepath.Join(dir, "mcp.json"),
		"MCPTRAY_DATA=" + filepath.Join(dir, "data"),
		instanceEnv + "=i1",
	} {
		if !slices.Contains(env, want) {
			t.Errorf("the server's environment lacks %s", want)
		}
	}
	for _, bad := range []string{"MCPTRAY_DATA=/somewhere/else", "MCPTRAY_CONFIG=/elsewhere/mcp.json"} {
		if slices.Contains(env, bad) {
			t.Errorf("the server's environment keeps mcptray's own %s", bad)
		}
	}
	env = c.serverEnv(config.Server{Command: "x", Env: map[string]string{"MCPTRAY_DATA": "/mine"}})
	if !slices.Contains(env, "MCPTRAY_DATA=/mine") || slices.Contains(env, "MCPTRAY_DATA="+filepath.Join(dir, "data")) {
		t.Errorf("the entry's MCPTRAY_DATA is not the one kept: %v", env)
	}
}
