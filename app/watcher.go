package app

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/mcptray/mcptray/app/config"
)

// watch reloads mcp.json whenever it changes, until ctx ends. It watches
// folders, not the file, because editors save by writing a temp file and
// renaming it over the original: the file's folder and, when mcp.json is a
// symlink (stow, chezmoi, home-manager), the folder of every link on the
// way and of the file at the end. A change to any of those names reloads and
// re-resolves the links, so a re-pointed link is followed; so does the
// once-a-second poll, which also catches what no watched folder sees (a
// symlinked folder re-pointed) and folders that disappear and come back.
// Changes are debounced.
func (c *Core) watch(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watching config: %w", err)
	}
	defer w.Close()

	var debounce <-chan time.Time
	lw := linkWatch{w: w, path: c.opts.ConfigPath, watched: map[string]bool{}}
	poll := time.NewTicker(time.Second)
	defer poll.Stop()
	resync := func() {
		if lw.sync() {
			debounce = time.After(c.opts.Debounce) // it may have changed while unwatched
		}
	}
	resync()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if lw.watched[ev.Name] && ev.Has(fsnotify.Remove|fsnotify.Rename) {
				// A watched folder itself went away.
				w.Remove(ev.Name)
				delete(lw.watched, ev.Name)
				lw.sync()
				debounce = time.After(c.opts.Debounce)
				continue
			}
			if slices.Contains(lw.names, filepath.Base(ev.Name)) {
				lw.sync()
				debounce = time.After(c.opts.Debounce)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			c.log.Warn("config watcher", "err", err)
		case <-poll.C:
			resync()
		case <-c.reloadReq:
			debounce = time.After(0)
		case <-debounce:
			debounce = nil
			c.reload(ctx)
		}
	}
}

// linkWatch keeps an fsnotify watch on the folders mcp.json's name leads
// through. Owned by the watch goroutine.
type linkWatch struct {
	w       *fsnotify.Watcher
	path    string          // mcp.json as configured, a symlink maybe
	watched map[string]bool // folders watched, as physical paths (one watch per folder)
	names   []string        // base names of the links and the file: the events that matter
	chain   []string        // the names path led through at the last sync
}

// sync follows path's links again and watches the folders they are in now,
// dropping those no longer on the way (or gone). It reports whether the
// chain of names changed or a folder came into or went out of view: then
// the file may have changed unseen.
func (l *linkWatch) sync() (changed bool) {
	chain := config.Links(l.path)
	// The file as the kernel opens it, symlinked folders resolved too.
	if real, err := filepath.EvalSymlinks(l.path); err == nil && real != chain[len(chain)-1] {
		chain = append(chain, real)
	}
	want := map[string]bool{}
	l.names = l.names[:0]
	for _, name := range chain {
		if base := filepath.Base(name); !slices.Contains(l.names, base) {
			l.names = append(l.names, base)
		}
		// Watch the physical folder: two names for one folder would share
		// one inotify watch, and removing one would drop both.
		if dir, err := filepath.EvalSymlinks(filepath.Dir(name)); err == nil {
			want[dir] = true
		}
	}
	for dir := range l.watched {
		if !want[dir] {
			l.w.Remove(dir)
			delete(l.watched, dir)
			changed = true
		}
	}
	for dir := range want {
		if !l.watched[dir] && l.w.Add(dir) == nil {
			l.watched[dir] = true
			changed = true
		}
	}
	if !slices.Equal(chain, l.chain) {
		l.chain = chain
		changed = true
	}
	return changed
}
