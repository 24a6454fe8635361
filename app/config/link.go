package config

import (
	"os"
	"path/filepath"
)

// maxLinks bounds a chain of symlinks, as the kernel does (ELOOP at 40).
const maxLinks = 40

// Links follows path through symlinks (a dotfiles setup: stow, chezmoi,
// home-manager) and returns every name on the way: path itself, then each
// link's target in turn. The last is the file to read and write; it may
// not exist yet. A relative target is taken from the link's folder, as the
// kernel does (symlinked folders on the way resolved first). A chain longer
// than 40 links stops there.
func Links(path string) []string {
	chain := []string{path}
	for len(chain) <= maxLinks {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			break
		}
		target, err := os.Readlink(path)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			dir := filepath.Dir(path)
			if real, err := filepath.EvalSymlinks(dir); err == nil {
				dir = real
			}
			target = filepath.Join(dir, target)
		}
		path = filepath.Clean(target)
		chain = append(chain, path)
	}
	return chain
}

// Target is the file path names once its symlinks are followed: the last
// of [Links]; path itself when it is no symlink.
func Target(path string) string {
	chain := Links(path)
	return chain[len(chain)-1]
}
