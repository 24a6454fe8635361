package ssh

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pkg/sftp"
)

type uploadIn struct {
	aliasArg
	LocalPath  string `json:"local_path" jsonschema:"file or directory on this machine (absolute or ~/…); only inside x-mcptray.localRoots (default: the home folder)"`
	RemotePath string `json:"remote_path" jsonschema:"destination; a trailing / or an existing directory means into it, like scp and rsync"`
	Recursive  bool   `json:"recursive,omitempty" jsonschema:"copy a directory with everything in it"`
}

type downloadIn struct {
	aliasArg
	RemotePath string `json:"remote_path" jsonschema:"file or directory on the remote host"`
	LocalPath  string `json:"local_path" jsonschema:"destination on this machine (absolute or ~/…), inside x-mcptray.localRoots; a trailing / or an existing directory means into it"`
	Recursive  bool   `json:"recursive,omitempty" jsonschema:"copy a directory with everything in it"`
}

type transferOut struct {
	Source      string   `json:"source"`
	Destination string   `json:"destination"`
	Files       int      `json:"files"`
	Dirs        int      `json:"dirs"`
	Bytes       int64    `json:"bytes"`
	Skipped     []string `json:"skipped,omitempty" jsonschema:"symlinks and special files, which are not copied"`
}

// localPath resolves p (absolute, or starting with ~) on this machine and
// checks that it lies inside one of the local roots. Symlinks in the part
// that exists are resolved first, so a link cannot lead outside.
func (s *Server) localPath(p string) (string, error) {
	st, err := s.loadSettings()
	if err != nil {
		return "", err
	}
	q := expandHome(p, s.home)
	if !filepath.IsAbs(q) {
		return "", fmt.Errorf("local path %q must be absolute or start with ~/", p)
	}
	real := resolveExisting(filepath.Clean(q))
	for _, root := range st.LocalRoots {
		r := resolveExisting(root)
		if rel, err := filepath.Rel(r, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return real, nil
		}
	}
	return "", fmt.Errorf("local path %s is outside the folders the SSH server may use (x-mcptray.localRoots: %s)", q, strings.Join(st.LocalRoots, ", "))
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

func (s *Server) uploadTool(ctx context.Context, req *sdk.CallToolRequest, in uploadIn) (*sdk.CallToolResult, transferOut, error) {
	src, err := s.localPath(in.LocalPath)
	if err != nil {
		return nil, transferOut{}, err
	}
	st, err := os.Stat(src)
	if err != nil {
		return nil, transferOut{}, fmt.Errorf("reading %s: %w", src, unwrapPath(err))
	}
	if st.IsDir() && !in.Recursive {
		return nil, transferOut{}, fmt.Errorf("%s is a directory: set recursive to copy it", src)
	}
	t, sc, dst, err := s.sftpOpen(ctx, req, in.Alias, in.RemotePath)
	if err != nil {
		return nil, transferOut{}, err
	}
	defer t.close()
	into := strings.HasSuffix(in.RemotePath, "/")
	if dst != "/" {
		if rst, err := sc.Stat(dst); err == nil && rst.IsDir() {
			into = true
		} else if into {
			if err := sc.MkdirAll(dst); err != nil {
				return nil, transferOut{}, remoteErr("creating", dst, err)
			}
		}
	} else {
		into = true
	}
	if into {
		dst = path.Join(dst, filepath.Base(src))
	}
	out := transferOut{Source: src, Destination: dst}
	if !st.IsDir() {
		return nil, out, upFile(sc, src, dst, st.Mode(), &out)
	}
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		rel, _ := filepath.Rel(src, p)
		rp := path.Join(dst, filepath.ToSlash(rel))
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if err := sc.MkdirAll(rp); err != nil {
				return remoteErr("creating", rp, err)
			}
			sc.Chmod(rp, info.Mode().Perm())
			out.Dirs++
		case info.Mode().IsRegular():
			return upFile(sc, p, rp, info.Mode(), &out)
		default:
			out.Skipped = append(out.Skipped, p)
		}
		return nil
	})
	if err != nil {
		return nil, transferOut{}, err
	}
	return nil, out, nil
}

func upFile(sc *sftp.Client, src, dst string, mode fs.FileMode, out *transferOut) error {
	f, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("reading %s: %w", src, unwrapPath(err))
	}
	defer f.Close()
	w, err := sc.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("writing %s: its remote folder does not exist", dst)
		}
		return remoteErr("writing", dst, err)
	}
	n, err := w.ReadFrom(f)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return remoteErr("writing", dst, err)
	}
	sc.Chmod(dst, mode.Perm())
	out.Files++
	out.Bytes += n
	return nil
}

func (s *Server) downloadTool(ctx context.Context, req *sdk.CallToolRequest, in downloadIn) (*sdk.CallToolResult, transferOut, error) {
	// Check the local side before connecting, so a refused path costs
	// nothing; it is checked again once the final name is known.
	if _, err := s.localPath(in.LocalPath); err != nil {
		return nil, transferOut{}, err
	}
	t, sc, src, err := s.sftpOpen(ctx, req, in.Alias, in.RemotePath)
	if err != nil {
		return nil, transferOut{}, err
	}
	defer t.close()
	st, err := sc.Stat(src)
	if err != nil {
		return nil, transferOut{}, remoteErr("reading", src, err)
	}
	if st.IsDir() && !in.Recursive {
		return nil, transferOut{}, fmt.Errorf("%s is a directory: set recursive to copy it", src)
	}
	dst := filepath.Clean(expandHome(in.LocalPath, s.home))
	into := strings.HasSuffix(in.LocalPath, "/")
	if lst, err := os.Stat(dst); err == nil && lst.IsDir() {
		into = true
	}
	if into {
		dst = filepath.Join(dst, path.Base(src))
	}
	if dst, err = s.localPath(dst); err != nil {
		return nil, transferOut{}, err
	}
	if into {
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return nil, transferOut{}, err
		}
	}
	out := transferOut{Source: src, Destination: dst}
	if !st.IsDir() {
		return nil, out, downFile(sc, src, dst, st.Mode(), &out)
	}
	w := sc.Walk(src)
	for w.Step() {
		if ctx.Err() != nil {
			return nil, transferOut{}, ctx.Err()
		}
		if err := w.Err(); err != nil {
			return nil, transferOut{}, remoteErr("reading", w.Path(), err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(w.Path(), src), "/")
		lp := filepath.Join(dst, filepath.FromSlash(rel))
		info := w.Stat()
		switch {
		case info.IsDir():
			if err := os.MkdirAll(lp, 0o755); err != nil {
				return nil, transferOut{}, err
			}
			os.Chmod(lp, info.Mode().Perm()|0o700)
			out.Dirs++
		case info.Mode().IsRegular():
			if err := downFile(sc, w.Path(), lp, info.Mode(), &out); err != nil {
				return nil, transferOut{}, err
			}
		default:
			out.Skipped = append(out.Skipped, w.Path())
		}
	}
	return nil, out, nil
}

func downFile(sc *sftp.Client, src, dst string, mode fs.FileMode, out *transferOut) error {
	r, err := sc.Open(src)
	if err != nil {
		return remoteErr("reading", src, err)
	}
	defer r.Close()
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode.Perm()|0o600)
	if err != nil {
		return fmt.Errorf("writing %s: %w", dst, unwrapPath(err))
	}
	n, err := r.WriteTo(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	out.Files++
	out.Bytes += n
	return nil
}

// unwrapPath drops the *PathError's repetition of the path.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
