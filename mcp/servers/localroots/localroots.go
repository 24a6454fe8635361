// Package localroots is the one check of x-mcptray.localRoots, the folders
// of this machine that built-in servers may read and write for the
// assistant: the SSH server's uploads and downloads, Gmail's attachments.
// It holds no state and starts no goroutine.
package localroots

import (
	"path/filepath"
	"strings"
)

// Inside resolves the absolute path p — the symlinks of its longest
// existing prefix, so that a link cannot lead outside — and reports
// whether the result lies in one of roots (resolved the same way). It
// returns the resolved path.
func Inside(p string, roots []string) (real string, ok bool) {
	real = resolveExisting(filepath.Clean(p))
	for _, root := range roots {
		if within(resolveExisting(root), real) {
			return real, true
		}
	}
	return real, false
}

// within says whether p is root or inside it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolveExisting resolves the symlinks of the longest existing prefix of
// p and appends the rest.
func resolveExisting(p string) string {
	rest := ""
	for cur := p; ; {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}
