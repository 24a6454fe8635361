package app

import (
	"context"
	"crypto/sha256"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/store"
)

// loadProbes makes the memory of which first request each stdio server
// takes (downstream.ProbeMemory) from what the store recorded, and has it
// record what it learns. The store holds the key (probeKey) and the
// version only. A store that cannot be read leaves the memory empty: the
// servers are asked both ways again, as on a first run.
func (c *Core) loadProbes(ctx context.Context) *downstream.ProbeMemory {
	saved, err := c.store.Probes(ctx)
	if err != nil {
		c.log.Warn("reading the servers' first requests", "err", err)
	}
	known := make(map[downstream.ProbeKey]string, len(saved))
	for k, v := range saved {
		known[downstream.ProbeKey(k)] = v
	}
	return downstream.NewProbeMemory(known, func(k downstream.ProbeKey, version string) {
		if err := c.store.SaveProbe(context.Background(), [store.ProbeKeySize]byte(k), version, time.Now()); err != nil {
			c.log.Warn("recording a server's first request", "err", err)
		}
	})
}

// probeKey names a stdio server in the probe memory: a SHA-256 of its
// launch fingerprint (config.Launch: the command line, the environment's
// names and the keyed hashes of its values, the cwd, the files it runs),
// which stays the same across restarts of mcptray while the launch
// does; a new command line, or a changed file it runs, is asked afresh.
// Zero (downstream's own fingerprint, for this process only) for an entry
// too broken to say what it runs.
func probeKey(spec config.Server) downstream.ProbeKey {
	fp := spec.Launch.Fingerprint()
	if fp == "" {
		return downstream.ProbeKey{}
	}
	return sha256.Sum256([]byte("mcptray probe key/1\x00" + fp))
}
