package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// TailLog copies a server's log file to w. With follow it keeps copying new
// lines until ctx ends, following rotation (<name>.log → <name>.log.1).
func TailLog(ctx context.Context, data, name string, w io.Writer, follow bool) error {
	path := LogPath(data, name)
	f, err := openLog(path)
	if err != nil && !(follow && errors.Is(err, os.ErrNotExist)) {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("no log for %q yet (%s)", name, path)
		}
		return err
	}
	if f != nil {
		defer func() { f.Close() }()
		if _, err := io.Copy(w, f); err != nil {
			return err
		}
	}
	if !follow {
		return nil
	}
	watcher, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer watcher.Close()
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := watcher.Add(filepath.Dir(path)); err != nil {
		return err
	}
	tick := time.NewTicker(time.Second) // a backstop for missed events
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-watcher.Events:
		case <-tick.C:
		}
		// Reopen when the file was rotated or created since.
		if st, err := os.Stat(path); err == nil {
			if f == nil {
				f, _ = openLog(path)
			} else if fst, err := f.Stat(); err == nil && !os.SameFile(st, fst) {
				io.Copy(w, f) // the rest of the rotated file
				f.Close()
				f, _ = openLog(path)
			}
		}
		if f != nil {
			if _, err := io.Copy(w, f); err != nil {
				return err
			}
		}
	}
}
