package app

import "github.com/mcptray/mcptray/app/keyring"

// The ${keyring:NAME} secrets are app/keyring's (keyring.SetSecret…);
// these are the running core's, which re-reads mcp.json after a change.

// SetSecret stores value as ${keyring:name} and re-reads mcp.json: a
// server that was refused for want of it starts, and one that ran with an
// older value restarts with the new one.
func (c *Core) SetSecret(name, value string) error {
	if err := keyring.SetSecret(name, value); err != nil {
		return err
	}
	c.log.Info("secret set; servers using it restart", "secret", name)
	c.requestReload()
	return nil
}

// RemoveSecret deletes ${keyring:name} and re-reads mcp.json: the servers
// using it are refused until it is set again.
func (c *Core) RemoveSecret(name string) error {
	if err := keyring.RemoveSecret(name); err != nil {
		return err
	}
	c.log.Info("secret removed", "secret", name)
	c.requestReload()
	return nil
}

// SecretNames lists the names of the ${keyring:NAME} secrets.
func (c *Core) SecretNames() ([]string, error) { return keyring.SecretNames() }
