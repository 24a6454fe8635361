package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// The bytes behind a command line count as much as the line: a wrapper
// script changed at the same path runs new code at the next restart. A
// Launch holds, for each file it names that the user can write (its
// command, each argument that is a path to a regular file, the path after
// "=" in --flag=PATH), the SHA-256 of its contents; and for a system file
// (owned by root, writable by no group or other user) only the path it
// resolves to, so a system upgrade asks nothing but a symlink pointed
// elsewhere does.
//
// When mcptray itself runs as root, root's files are the user's: every
// file counts. Files are hashed at each parse of mcp.json and again before
// each start and restart of the entry (Launch.Rehash), through a cache
// keyed by (device, inode, size, mtime, ctime): a file that did not change
// is read once per process, and any write changes ctime, which no user can
// set back.

// fileEntry is one cached hash.
type fileEntry struct {
	dev, ino, size uint64
	mtime, ctime   int64
	sum            string
}

var fileHashes = struct {
	sync.Mutex
	m map[string]fileEntry // by path as stat'ed
}{m: map[string]fileEntry{}}

// maxFileCache bounds the cache; past it, it starts again.
const maxFileCache = 4096

// fileMark is what a Launch records of the regular file at path: "sha256:…"
// for a file the user can write, "system:RESOLVED" for a system file, ""
// when path is no regular file (it is then not part of the launch).
func fileMark(path string, root bool) string {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	key, uid, ok := statKey(fi)
	if ok && !root && uid == 0 && fi.Mode().Perm()&0o022 == 0 {
		resolved, err := filepath.EvalSymlinks(path)
		if err != nil {
			resolved = path
		}
		return "system:" + resolved
	}
	sum, err := hashFile(path, key, ok)
	if err != nil {
		return "unreadable:" + err.Error()
	}
	return "sha256:" + sum
}

// hashFile is the SHA-256 of path's contents, from the cache when its stat
// is unchanged.
func hashFile(path string, key fileEntry, cache bool) (string, error) {
	if cache {
		fileHashes.Lock()
		e, ok := fileHashes.m[path]
		fileHashes.Unlock()
		if ok && e.sum != "" && e.dev == key.dev && e.ino == key.ino && e.size == key.size && e.mtime == key.mtime && e.ctime == key.ctime {
			return e.sum, nil
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	key.sum = hex.EncodeToString(h.Sum(nil))
	if cache {
		fileHashes.Lock()
		if len(fileHashes.m) >= maxFileCache {
			clear(fileHashes.m)
		}
		fileHashes.m[path] = key
		fileHashes.Unlock()
	}
	return key.sum, nil
}

// fileCandidates are the paths an stdio launch names that may be files:
// its command, and each argument that is a path (absolute, or relative to
// the entry's cwd when it has one: cwd, absolute), or ends in "=PATH".
// mcptray's own executable (self) is left out: what could replace it runs
// as mcptray anyway, and an upgrade of mcptray must not make every
// built-in server ask.
func fileCandidates(l Launch, cwd, self string) []string {
	if l.Type != TypeStdio || l.Command == "" {
		return nil
	}
	var out []string
	add := func(p string) {
		if p == "" || strings.Contains(p, "${") {
			return
		}
		if !filepath.IsAbs(p) {
			if cwd == "" || !filepath.IsAbs(cwd) || strings.Contains(cwd, "${") {
				return
			}
			p = filepath.Join(cwd, p)
		}
		if p = filepath.Clean(p); self == "" || p != filepath.Clean(self) {
			out = append(out, p)
		}
	}
	if filepath.IsAbs(l.Command) {
		add(l.Command)
	}
	for _, a := range l.Args {
		if strings.HasPrefix(a, "-") {
			if _, v, ok := strings.Cut(a, "="); ok {
				add(v)
			}
			continue
		}
		add(a)
	}
	return out
}

// Rehash is l with its files (Files) read again: what starting it now
// would run. Call it before each start.
func (l Launch) Rehash() Launch {
	l.Files = nil
	for _, p := range l.filePaths {
		if m := fileMark(p, l.root); m != "" {
			if l.Files == nil {
				l.Files = map[string]string{}
			}
			l.Files[p] = m
		}
	}
	return l
}

// FileChanges lists the files of l whose contents (or, for a system file,
// resolved path) differ from approved's (its Files), sorted.
func (l Launch) FileChanges(approved map[string]string) []string {
	var out []string
	for _, p := range sortedKeys(l.Files) {
		if old, ok := approved[p]; ok && old != l.Files[p] {
			out = append(out, p)
		}
	}
	return out
}
