package ssh

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pkg/sftp"
)

// keepsText tells, in edit_file's and replace_lines' descriptions, what
// replaceFile keeps.
const keepsText = "The file keeps its mode, owner and group: it is replaced atomically when that can keep them, " +
	"else written in place (in_place in the result); a file the SSH user may neither write nor give a new copy its owner is refused."

// maxEditFile bounds the files edit_file and replace_lines rewrite.
const maxEditFile = 16 << 20

type editFileIn struct {
	aliasArg
	Path      string `json:"path"`
	OldString string `json:"old_string" jsonschema:"the exact text to replace; it must occur exactly once"`
	NewString string `json:"new_string" jsonschema:"the text to put in its place"`
}

type editOut struct {
	Path       string `json:"path"`
	SHA256     string `json:"sha256" jsonschema:"of the file as written"`
	Size       int64  `json:"size"`
	TotalLines int    `json:"total_lines"`
	InPlace    bool   `json:"in_place,omitempty" jsonschema:"written over the old file rather than replaced by a new one, to keep its owner (or the folder takes no new file)"`
}

type replaceLinesIn struct {
	aliasArg
	Path           string `json:"path"`
	StartLine      int    `json:"start_line" jsonschema:"first line to replace, counting from 1"`
	EndLine        int    `json:"end_line" jsonschema:"last line to replace (inclusive); start_line - 1 inserts before start_line"`
	NewText        string `json:"new_text" jsonschema:"the replacement lines; empty deletes the range"`
	ExpectedSHA256 string `json:"expected_sha256,omitempty" jsonschema:"the file's sha256 as read_file reported it; the edit is refused if the file changed since"`
}

// readWhole reads a remote file to edit it, following a symlink to its
// target (so that replaceFile replaces the file, not the link).
func readWhole(sc *sftp.Client, p string) (string, []byte, fs.FileInfo, error) {
	p, err := resolveLink(sc, p)
	if err != nil {
		return "", nil, nil, err
	}
	f, err := sc.Open(p)
	if err != nil {
		return "", nil, nil, remoteErr("reading", p, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", nil, nil, remoteErr("reading", p, err)
	}
	if !st.Mode().IsRegular() {
		return "", nil, nil, fmt.Errorf("%s is not a regular file", p)
	}
	if st.Size() > maxEditFile {
		return "", nil, nil, fmt.Errorf("%s is too large to edit here (%d bytes; the limit is %d)", p, st.Size(), maxEditFile)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxEditFile+1))
	if err != nil {
		return "", nil, nil, remoteErr("reading", p, err)
	}
	return p, data, st, nil
}

// resolveLink follows p while it is a symlink. (SFTP's realpath would do,
// but not every server resolves links in it.)
func resolveLink(sc *sftp.Client, p string) (string, error) {
	for range 40 {
		st, err := sc.Lstat(p)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		target, err := sc.ReadLink(p)
		if err != nil {
			return "", remoteErr("reading the symlink", p, err)
		}
		if !path.IsAbs(target) {
			target = path.Join(path.Dir(p), target)
		}
		p = target
	}
	return "", fmt.Errorf("%s: too many levels of symlinks", p)
}

// replaceFile writes data as p's new content, keeping what a person
// editing the file would expect kept: its mode, its owner and group.
//
// The new content goes to a temporary file in the same directory, with
// p's mode and, when the two differ from what the file got, p's owner and
// group (which only works when the SSH user may give them), and is
// renamed over p (posix-rename@openssh.com when the server has it): a
// reader sees the old file or the new one, never half of it. When that
// cannot keep the owner, or the directory takes no new file (a file the
// user may write in a folder they may not), p is written over in place
// instead, as an editor does — which keeps owner, group, mode, hard links
// and extended attributes, but is not atomic. inPlace says which.
func replaceFile(sc *sftp.Client, p string, data []byte, st fs.FileInfo) (inPlace bool, err error) {
	err = renameOver(sc, p, data, st)
	if !errors.Is(err, errKeepOwner) && !errors.Is(err, fs.ErrPermission) {
		return false, err
	}
	f, oerr := sc.OpenFile(p, os.O_WRONLY|os.O_TRUNC)
	if oerr != nil {
		oerr = remoteErr("writing", p, oerr)
		if errors.Is(err, errKeepOwner) {
			return false, fmt.Errorf("%w; replacing it instead would change its owner (%v)", oerr, err)
		}
		return false, oerr
	}
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Close()); err != nil {
		return true, fmt.Errorf("writing %s in place failed part way, so it may now hold only part of the new content (%d bytes, sha256 %s): %w", p, len(data), sum(data), err)
	}
	return true, nil
}

// errKeepOwner: the temporary file could not be given p's owner.
var errKeepOwner = errors.New("the SSH user may not give it the same owner and group")

// renameOver is replaceFile's atomic way.
func renameOver(sc *sftp.Client, p string, data []byte, st fs.FileInfo) error {
	dir, base := path.Split(p)
	var rnd [6]byte
	rand.Read(rnd[:])
	tmp := path.Join(dir, "."+base+".mcptray-"+hex.EncodeToString(rnd[:]))
	f, err := sc.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return remoteErr("creating a temporary file in", dir, err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		sc.Remove(tmp)
		return remoteErr("writing", tmp, err)
	}
	if err := sc.Chmod(tmp, st.Mode().Perm()); err != nil {
		sc.Remove(tmp)
		return remoteErr("setting the mode of", tmp, err)
	}
	if err := keepOwner(sc, tmp, st); err != nil {
		sc.Remove(tmp)
		return err
	}
	if _, ok := sc.HasExtension("posix-rename@openssh.com"); ok {
		err = sc.PosixRename(tmp, p)
	} else {
		err = sc.Rename(tmp, p)
	}
	if err != nil {
		sc.Remove(tmp)
		return remoteErr("replacing", p, err)
	}
	return nil
}

// keepOwner gives tmp the owner and group of the file st describes, when
// it does not have them already; errKeepOwner when the server refuses.
func keepOwner(sc *sftp.Client, tmp string, st fs.FileInfo) error {
	want, ok := st.Sys().(*sftp.FileStat)
	if !ok {
		return nil // the server did not say: nothing to keep
	}
	got, err := sc.Stat(tmp)
	if err != nil {
		return remoteErr("reading", tmp, err)
	}
	if g, ok := got.Sys().(*sftp.FileStat); ok && g.UID == want.UID && g.GID == want.GID {
		return nil
	}
	if err := sc.Chown(tmp, int(want.UID), int(want.GID)); err != nil {
		return fmt.Errorf("%w: %w", errKeepOwner, remoteErr("chown", tmp, err))
	}
	return nil
}

func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

func countLines(data []byte) int {
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

func (s *Server) editFileTool(ctx context.Context, req *sdk.CallToolRequest, in editFileIn) (*sdk.CallToolResult, editOut, error) {
	if in.OldString == "" {
		return nil, editOut{}, errors.New("old_string is empty")
	}
	if in.OldString == in.NewString {
		return nil, editOut{}, errors.New("old_string and new_string are the same")
	}
	t, sc, p, err := s.sftpOpen(ctx, req, in.Alias, in.Path)
	if err != nil {
		return nil, editOut{}, err
	}
	defer t.close()
	p, data, st, err := readWhole(sc, p)
	if err != nil {
		return nil, editOut{}, err
	}
	switch n := strings.Count(string(data), in.OldString); n {
	case 0:
		return nil, editOut{}, fmt.Errorf("old_string was not found in %s (it must match exactly, whitespace included)", p)
	case 1:
	default:
		return nil, editOut{}, fmt.Errorf("old_string occurs %d times in %s; include more of the surrounding text so it occurs once", n, p)
	}
	next := []byte(strings.Replace(string(data), in.OldString, in.NewString, 1))
	inPlace, err := replaceFile(sc, p, next, st)
	if err != nil {
		return nil, editOut{}, err
	}
	return nil, editOut{Path: p, SHA256: sum(next), Size: int64(len(next)), TotalLines: countLines(next), InPlace: inPlace}, nil
}

func (s *Server) replaceLinesTool(ctx context.Context, req *sdk.CallToolRequest, in replaceLinesIn) (*sdk.CallToolResult, editOut, error) {
	if in.StartLine < 1 {
		return nil, editOut{}, fmt.Errorf("start_line must be 1 or more, got %d", in.StartLine)
	}
	if in.EndLine < in.StartLine-1 {
		return nil, editOut{}, fmt.Errorf("end_line (%d) must be at least start_line - 1 (%d)", in.EndLine, in.StartLine-1)
	}
	t, sc, p, err := s.sftpOpen(ctx, req, in.Alias, in.Path)
	if err != nil {
		return nil, editOut{}, err
	}
	defer t.close()
	p, data, st, err := readWhole(sc, p)
	if err != nil {
		return nil, editOut{}, err
	}
	if in.ExpectedSHA256 != "" && !strings.EqualFold(in.ExpectedSHA256, sum(data)) {
		return nil, editOut{}, fmt.Errorf("%s changed since it was read: its sha256 is %s, not %s; read it again", p, sum(data), in.ExpectedSHA256)
	}
	next, err := replaceLines(data, in.StartLine, in.EndLine, in.NewText)
	if err != nil {
		return nil, editOut{}, fmt.Errorf("%s: %w", p, err)
	}
	inPlace, err := replaceFile(sc, p, next, st)
	if err != nil {
		return nil, editOut{}, err
	}
	return nil, editOut{Path: p, SHA256: sum(next), Size: int64(len(next)), TotalLines: countLines(next), InPlace: inPlace}, nil
}

// replaceLines replaces lines start..end (1-based, inclusive; end =
// start-1 inserts) of data with text. text gets a final newline when a
// line follows it or the replaced lines ended with one.
func replaceLines(data []byte, start, end int, text string) ([]byte, error) {
	lines := strings.SplitAfter(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	n := len(lines)
	if start > n+1 {
		return nil, fmt.Errorf("start_line %d is past the end (%d lines)", start, n)
	}
	if end > n {
		return nil, fmt.Errorf("end_line %d is past the end (%d lines)", end, n)
	}
	endsNL := end < n || (end >= 1 && strings.HasSuffix(lines[end-1], "\n")) || (end < start && start <= n)
	if text != "" && !strings.HasSuffix(text, "\n") && endsNL {
		text += "\n"
	}
	// Appending after a last line without a newline: give it one.
	if start == n+1 && n > 0 && !strings.HasSuffix(lines[n-1], "\n") && text != "" {
		lines[n-1] += "\n"
	}
	var b strings.Builder
	for _, l := range lines[:start-1] {
		b.WriteString(l)
	}
	b.WriteString(text)
	for _, l := range lines[end:] {
		b.WriteString(l)
	}
	return []byte(b.String()), nil
}
