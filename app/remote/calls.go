package remote

import (
	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
)

// What the instance does: each is one request on the control socket.

// SetEnabled turns a server on or off: the instance rewrites its
// "disabled" key, and the change comes back through Subscribe.
func (c *Core) SetEnabled(name string, enabled bool) error {
	ctx, cancel := c.call(callTimeout)
	defer cancel()
	return c.fail(c.cl.SetEnabled(ctx, name, enabled))
}

// Restart stops and starts one server.
func (c *Core) Restart(name string) error {
	ctx, cancel := c.call(callTimeout)
	defer cancel()
	return c.fail(c.cl.Restart(ctx, name))
}

// AskSignIn asks the person again, in the inbox, to sign in to the
// remote server name.
func (c *Core) AskSignIn(name string) error {
	ctx, cancel := c.call(callTimeout)
	defer cancel()
	return c.fail(c.cl.AskSignIn(ctx, name))
}

// Tools lists a server's tools with their switches.
func (c *Core) Tools(name string) (control.ToolList, error) {
	ctx, cancel := c.call(callTimeout)
	defer cancel()
	l, err := c.cl.Tools(ctx, name)
	return l, c.fail(err)
}

// SetToolEnabled turns one tool of a server on or off (the instance
// rewrites the entry's disabledTools).
func (c *Core) SetToolEnabled(server, tool string, on bool) error {
	ctx, cancel := c.call(callTimeout)
	defer cancel()
	return c.fail(c.cl.SetToolEnabled(ctx, server, tool, on))
}

// ToolsMode is the instance's default tool-list mode (its last good
// config's): live, stable or dynamic. When the instance cannot say, it is
// the default, config.DefaultTools, and the log says why.
func (c *Core) ToolsMode() string {
	ctx, cancel := c.call(settingsTimeout)
	defer cancel()
	s, err := c.cl.Settings(ctx)
	if err != nil || s.Tools == "" {
		c.log.Warn("reading the tool-list mode", "err", c.fail(err))
		return config.DefaultTools
	}
	return s.Tools
}

// Answer answers an inbox request: an *inbox.InvalidAnswerError names the
// field the instance refused (the request stays open); an error wrapping
// inbox.ErrRequestClosed means it was answered elsewhere or is gone. The
// values travel in the request's body only.
func (c *Core) Answer(id string, a inbox.Answer) error {
	ctx, cancel := c.call(callTimeout)
	defer cancel()
	return c.fail(c.cl.Answer(ctx, id, a))
}

// SecretNames lists the names of the ${keyring:NAME} secrets.
func (c *Core) SecretNames() ([]string, error) {
	ctx, cancel := c.call(callTimeout)
	defer cancel()
	names, err := c.cl.SecretNames(ctx)
	return names, c.fail(err)
}

// SetSecret stores ${keyring:name} through the instance, which restarts
// the servers using it. The value goes in the request body, nowhere else.
func (c *Core) SetSecret(name, value string) error {
	ctx, cancel := c.call(callTimeout)
	defer cancel()
	return c.fail(c.cl.SetSecret(ctx, name, value))
}

// RemoveSecret deletes ${keyring:name} through the instance (an error
// wrapping config.ErrNoSecret when there is none).
func (c *Core) RemoveSecret(name string) error {
	ctx, cancel := c.call(callTimeout)
	defer cancel()
	return c.fail(c.cl.RemoveSecret(ctx, name))
}
