package config

import (
	"os"
	"syscall"
)

// statKey is what the file hash cache compares of fi, and its owner.
func statKey(fi os.FileInfo) (fileEntry, uint32, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileEntry{}, 0, false
	}
	return fileEntry{dev: uint64(st.Dev), ino: st.Ino, size: uint64(fi.Size()), mtime: fi.ModTime().UnixNano(),
		ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec}, st.Uid, true
}
