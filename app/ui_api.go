package app

import (
	"context"
	"fmt"
	"io"

	"github.com/mcptray/mcptray/app/config"
)

// What the desktop UI needs beyond Status, Subscribe, SetEnabled and
// Restart. SecretNames, SetSecret and RemoveSecret (the Settings tab's
// secrets) are in secrets.go, over app/keyring's.

// FollowLog copies server name's log to w, then every new line until ctx
// ends (TailLog with follow, on this core's data dir).
func (c *Core) FollowLog(ctx context.Context, name string, w io.Writer) error {
	return TailLog(ctx, c.opts.DataDir, name, w, true)
}

// Token returns the HTTP endpoint's bearer token (Options.Token).
func (c *Core) Token() (string, error) { return c.opts.Token() }

// ToolsMode is the default tool-list mode of the last good config: live,
// stable or dynamic.
func (c *Core) ToolsMode() string { return c.toolsMode() }

// SetToolsMode rewrites "x-mcptray".tools in mcp.json (atomically, every
// other byte kept); the watcher applies it like any other edit.
func (c *Core) SetToolsMode(mode string) error { return SetToolsMode(c.configFile, mode) }

// SetToolsMode rewrites "x-mcptray".tools in f (Core.SetToolsMode, and a
// window's in another process: app/remote), refusing a mode that is not
// live, stable or dynamic.
func SetToolsMode(f *config.File, mode string) error {
	switch mode {
	case "live", "stable", "dynamic":
	default:
		return fmt.Errorf(`the tool-list mode must be "live", "stable" or "dynamic", got %q`, mode)
	}
	return f.SetSetting("tools", mode)
}
