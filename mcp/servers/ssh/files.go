package ssh

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pkg/sftp"
)

// File tool limits.
const (
	defaultReadLines   = 2000
	maxReadLines       = 20000
	maxReadBytes       = 256 << 10 // text returned by read_file
	maxHashedFile      = 16 << 20  // read_file hashes and counts files up to this size
	defaultListEntries = 500
	maxListEntries     = 5000
	defaultGrepMatches = 100
	maxGrepMatches     = 1000
	maxGrepLine        = 500 // bytes of a matching line
)

// remotePath makes p absolute on the remote host: ~ and relative paths
// start at the login directory.
func remotePath(sc *sftp.Client, p string) (string, error) {
	if p == "" {
		return "", errors.New("path is empty")
	}
	if path.IsAbs(p) {
		return path.Clean(p), nil
	}
	home, err := sc.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the login directory: %w", err)
	}
	switch {
	case p == "~":
		return home, nil
	case strings.HasPrefix(p, "~/"):
		p = p[2:]
	}
	return path.Join(home, p), nil
}

// remoteErr words an SFTP error about p for a person.
func remoteErr(what, p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: no such file or directory", what, p)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s %s: %w", what, p, fs.ErrPermission) // "permission denied"
	}
	return fmt.Errorf("%s %s: %w", what, p, err)
}

// sftpOpen opens the alias and its SFTP client, and resolves path there
// (remotePath); on an error nothing stays open.
func (s *Server) sftpOpen(ctx context.Context, req *sdk.CallToolRequest, alias, path string) (*target, *sftp.Client, string, error) {
	t, err := s.open(ctx, s.asker(req), alias)
	if err != nil {
		return nil, nil, "", err
	}
	sc, err := t.sftp()
	if err != nil {
		t.close()
		return nil, nil, "", err
	}
	p, err := remotePath(sc, path)
	if err != nil {
		t.close()
		return nil, nil, "", err
	}
	return t, sc, p, nil
}

type readFileIn struct {
	aliasArg
	Path   string `json:"path" jsonschema:"the file; relative paths and ~ start at the login directory"`
	Offset int    `json:"offset,omitempty" jsonschema:"first line to return, counting from 1; default 1"`
	Limit  int    `json:"limit,omitempty" jsonschema:"number of lines to return; default 2000"`
}

type readFileOut struct {
	Path       string `json:"path"`
	Content    string `json:"content" jsonschema:"the lines, exactly as in the file"`
	StartLine  int    `json:"start_line"`
	EndLine    int    `json:"end_line" jsonschema:"the last line returned (start_line - 1 when none)"`
	TotalLines int    `json:"total_lines,omitempty" jsonschema:"lines in the file (absent for files over 16 MiB)"`
	More       bool   `json:"more,omitempty" jsonschema:"there are lines after end_line"`
	Truncated  bool   `json:"truncated,omitempty" jsonschema:"stopped at 256 KiB of text before limit lines"`
	Size       int64  `json:"size"`
	SHA256     string `json:"sha256,omitempty" jsonschema:"of the whole file, for replace_lines' expected_sha256 (absent for files over 16 MiB)"`
}

func (s *Server) readFileTool(ctx context.Context, req *sdk.CallToolRequest, in readFileIn) (*sdk.CallToolResult, readFileOut, error) {
	if in.Offset < 0 || in.Limit < 0 {
		return nil, readFileOut{}, errors.New("offset and limit must be positive")
	}
	offset, limit := max(in.Offset, 1), in.Limit
	if limit == 0 {
		limit = defaultReadLines
	}
	limit = min(limit, maxReadLines)
	t, sc, p, err := s.sftpOpen(ctx, req, in.Alias, in.Path)
	if err != nil {
		return nil, readFileOut{}, err
	}
	defer t.close()
	f, err := sc.Open(p)
	if err != nil {
		return nil, readFileOut{}, remoteErr("reading", p, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, readFileOut{}, remoteErr("reading", p, err)
	}
	if st.IsDir() {
		return nil, readFileOut{}, fmt.Errorf("%s is a directory (list_files lists it)", p)
	}
	whole := st.Size() <= maxHashedFile
	var h hash.Hash
	var r io.Reader = f
	if whole {
		h = sha256.New()
		r = io.TeeReader(f, h)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	out := readFileOut{Path: p, StartLine: offset, EndLine: offset - 1, Size: st.Size()}
	var b strings.Builder
	line, checked := 0, false
	for {
		text, err := br.ReadString('\n')
		if text != "" {
			line++
			if !checked {
				checked = true
				if strings.IndexByte(text[:min(len(text), 8192)], 0) >= 0 {
					return nil, readFileOut{}, fmt.Errorf("%s looks binary (it has NUL bytes); download copies it", p)
				}
			}
			switch {
			case line < offset:
			case line >= offset+limit || out.Truncated:
				out.More = true
			case b.Len()+len(text) > maxReadBytes:
				out.Truncated, out.More = true, true
			default:
				b.WriteString(text)
				out.EndLine = line
			}
			if out.More && !whole {
				break
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, readFileOut{}, remoteErr("reading", p, err)
		}
	}
	out.Content = b.String()
	if whole {
		// Read to the end (More stops the loop only for big files).
		out.TotalLines = line
		out.SHA256 = hex.EncodeToString(h.Sum(nil))
	}
	if offset > line && line > 0 {
		return nil, readFileOut{}, fmt.Errorf("offset %d is past the end of %s (%d lines)", offset, p, line)
	}
	return nil, out, nil
}

type listFilesIn struct {
	aliasArg
	Path       string `json:"path,omitempty" jsonschema:"the directory; default the login directory"`
	Recursive  bool   `json:"recursive,omitempty" jsonschema:"list subdirectories too (symlinks are not followed)"`
	MaxEntries int    `json:"max_entries,omitempty" jsonschema:"stop after this many entries; default 500, at most 5000"`
}

type fileEntry struct {
	Path    string `json:"path"`
	Type    string `json:"type" jsonschema:"file, dir, symlink or other"`
	Size    int64  `json:"size"`
	Mode    string `json:"mode" jsonschema:"like ls -l: -rw-r--r--"`
	ModTime string `json:"mtime" jsonschema:"RFC 3339"`
}

type listFilesOut struct {
	Path      string      `json:"path"`
	Entries   []fileEntry `json:"entries"`
	Truncated bool        `json:"truncated,omitempty" jsonschema:"more entries exist than max_entries"`
}

func entryOf(p string, fi fs.FileInfo) fileEntry {
	typ := "other"
	switch m := fi.Mode(); {
	case m.IsRegular():
		typ = "file"
	case m.IsDir():
		typ = "dir"
	case m&fs.ModeSymlink != 0:
		typ = "symlink"
	}
	return fileEntry{Path: p, Type: typ, Size: fi.Size(), Mode: fi.Mode().String(), ModTime: fi.ModTime().UTC().Format(time.RFC3339)}
}

func (s *Server) listFilesTool(ctx context.Context, req *sdk.CallToolRequest, in listFilesIn) (*sdk.CallToolResult, listFilesOut, error) {
	limit := in.MaxEntries
	if limit <= 0 {
		limit = defaultListEntries
	}
	limit = min(limit, maxListEntries)
	if in.Path == "" {
		in.Path = "~"
	}
	t, sc, p, err := s.sftpOpen(ctx, req, in.Alias, in.Path)
	if err != nil {
		return nil, listFilesOut{}, err
	}
	defer t.close()
	st, err := sc.Stat(p)
	if err != nil {
		return nil, listFilesOut{}, remoteErr("listing", p, err)
	}
	out := listFilesOut{Path: p, Entries: []fileEntry{}}
	if !st.IsDir() {
		out.Entries = append(out.Entries, entryOf(p, st))
		return nil, out, nil
	}
	if !in.Recursive {
		list, err := sc.ReadDir(p)
		if err != nil {
			return nil, listFilesOut{}, remoteErr("listing", p, err)
		}
		for _, fi := range list {
			if len(out.Entries) == limit {
				out.Truncated = true
				break
			}
			out.Entries = append(out.Entries, entryOf(path.Join(p, fi.Name()), fi))
		}
		return nil, out, nil
	}
	w := sc.Walk(p)
	for w.Step() {
		if ctx.Err() != nil {
			return nil, listFilesOut{}, ctx.Err()
		}
		if w.Err() != nil {
			continue // unreadable subdirectory: skip it
		}
		if w.Path() == p {
			continue
		}
		if len(out.Entries) == limit {
			out.Truncated = true
			break
		}
		out.Entries = append(out.Entries, entryOf(w.Path(), w.Stat()))
	}
	return nil, out, nil
}

type grepIn struct {
	aliasArg
	Pattern    string `json:"pattern" jsonschema:"an extended regular expression (grep -E)"`
	Path       string `json:"path,omitempty" jsonschema:"file or directory to search; default the login directory"`
	Recursive  *bool  `json:"recursive,omitempty" jsonschema:"search directories recursively; default true"`
	IgnoreCase bool   `json:"ignore_case,omitempty"`
	Include    string `json:"include,omitempty" jsonschema:"only files whose name matches this glob, like *.conf"`
	MaxMatches int    `json:"max_matches,omitempty" jsonschema:"stop after this many matching lines; default 100, at most 1000"`
}

type grepMatch struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

type grepOut struct {
	Matches   []grepMatch `json:"matches"`
	Truncated bool        `json:"truncated,omitempty" jsonschema:"more lines matched than max_matches"`
	Errors    string      `json:"errors,omitempty" jsonschema:"grep's complaints (unreadable files), if any"`
}

var grepLine = regexp.MustCompile(`^(.*?):([0-9]+):(.*)$`)

// shellPath quotes a remote path for the shell, keeping a leading ~.
func shellPath(p string) string {
	switch {
	case p == "~":
		return `"$HOME"`
	case strings.HasPrefix(p, "~/"):
		return `"$HOME"/` + shellQuote(p[2:])
	}
	return shellQuote(p)
}

func (s *Server) grepTool(ctx context.Context, req *sdk.CallToolRequest, in grepIn) (*sdk.CallToolResult, grepOut, error) {
	if in.Pattern == "" {
		return nil, grepOut{}, errors.New("pattern is empty")
	}
	limit := in.MaxMatches
	if limit <= 0 {
		limit = defaultGrepMatches
	}
	limit = min(limit, maxGrepMatches)
	if in.Path == "" {
		in.Path = "."
	}
	flags := "-n -H -I -E"
	if in.Recursive == nil || *in.Recursive {
		flags += " -r"
	}
	if in.IgnoreCase {
		flags += " -i"
	}
	if in.Include != "" {
		flags += " --include=" + shellQuote(in.Include)
	}
	cmd := fmt.Sprintf("grep %s -e %s -- %s | head -n %d", flags, shellQuote(in.Pattern), shellPath(in.Path), limit+1)
	t, err := s.open(ctx, s.asker(req), in.Alias)
	if err != nil {
		return nil, grepOut{}, err
	}
	defer t.close()
	res, err := s.run(ctx, t, runSpec{cmd: cmd, timeout: 120 * time.Second, maxOut: 4 << 20})
	if err != nil {
		return nil, grepOut{}, err
	}
	if res.timedOut {
		return nil, grepOut{}, errors.New("grep took longer than 120 s; search a smaller path")
	}
	out := grepOut{Matches: []grepMatch{}, Errors: strings.TrimSpace(res.stderr.String())}
	for _, l := range strings.Split(res.stdout.String(), "\n") {
		m := grepLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if len(out.Matches) == limit {
			out.Truncated = true
			break
		}
		n, _ := strconv.Atoi(m[2])
		text := m[3]
		if len(text) > maxGrepLine {
			text = string(cutPartialRune([]byte(text[:maxGrepLine]))) + "…"
		}
		out.Matches = append(out.Matches, grepMatch{Path: m[1], Line: n, Text: text})
	}
	if len(out.Matches) == 0 && out.Errors != "" {
		return nil, grepOut{}, fmt.Errorf("grep on alias %s: %s", t.alias.Name, lastLine(out.Errors))
	}
	return nil, out, nil
}
