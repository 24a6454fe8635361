package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watch reloads mcp.json whenever it changes, until ctx ends. It watches the
// file's folder, not the file, because editors save by writing a temp file
// and renaming it over the original. Changes are debounced. If the folder
// itself disappears, it polls until it is back.
func (c *Core) watch(ctx context.Context) error {
	dir := filepath.Dir(c.opts.ConfigPath)
	base := filepath.Base(c.opts.ConfigPath)
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watching config: %w", err)
	}
	defer w.Close()

	var debounce <-chan time.Time
	watching := false
	poll := time.NewTicker(time.Second)
	defer poll.Stop()
	ensure := func() {
		if watching {
			return
		}
		if err := w.Add(dir); err == nil {
			watching = true
			debounce = time.After(c.opts.Debounce) // it may have changed while unwatched
		}
	}
	ensure()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if ev.Name == dir && ev.Has(fsnotify.Remove|fsnotify.Rename) {
				watching = false
				debounce = time.After(c.opts.Debounce)
				continue
			}
			if filepath.Base(ev.Name) == base {
				debounce = time.After(c.opts.Debounce)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			c.log.Warn("config watcher", "err", err)
		case <-poll.C:
			if !watching {
				if _, err := os.Stat(dir); err == nil {
					ensure()
				}
			} else if _, err := os.Stat(dir); err != nil {
				// The folder went away without an event for it (inotify
				// reports IN_DELETE_SELF as Remove on the dir on Linux,
				// but not every platform does).
				w.Remove(dir)
				watching = false
				debounce = time.After(c.opts.Debounce)
			}
		case <-c.reloadReq:
			debounce = time.After(0)
		case <-debounce:
			debounce = nil
			c.reload(ctx)
		}
	}
}
