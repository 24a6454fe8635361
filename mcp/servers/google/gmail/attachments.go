package gmail

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	gm "google.golang.org/api/gmail/v1"
)

// localFile resolves p (absolute, or starting with ~) and checks that it
// lies inside one of the local roots. Symlinks in the part that exists
// are resolved first, so a link cannot lead outside.
func (s *Server) localFile(p string) (string, error) {
	q := p
	if q == "~" || strings.HasPrefix(q, "~/") {
		q = filepath.Join(s.opts.Home, strings.TrimPrefix(q, "~"))
	}
	if !filepath.IsAbs(q) {
		return "", fmt.Errorf("attachment %q must be an absolute path or start with ~/", p)
	}
	real := resolveExisting(filepath.Clean(q))
	for _, root := range s.opts.LocalRoots {
		if within(resolveExisting(root), real) {
			return real, nil
		}
	}
	return "", fmt.Errorf("attachment %s is outside the folders mcptray may read (x-mcptray.localRoots: %s); nothing was sent",
		q, strings.Join(s.opts.LocalRoots, ", "))
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

// loadAttachments reads the files to attach: regular files inside the
// local roots, at most maxAttachBytes together.
func (s *Server) loadAttachments(paths []string) ([]fileAttachment, error) {
	var out []fileAttachment
	total := 0
	for _, p := range paths {
		real, err := s.localFile(p)
		if err != nil {
			return nil, err
		}
		st, err := os.Stat(real)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("attachment %s does not exist", p)
		}
		if err != nil {
			return nil, fmt.Errorf("attachment %s: %w", p, err)
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("attachment %s is not a file", p)
		}
		if total += int(st.Size()); total > maxAttachBytes {
			return nil, fmt.Errorf("the attachments come to more than Gmail's %d MB; share large files by link", maxAttachBytes>>20)
		}
		data, err := os.ReadFile(real)
		if err != nil {
			return nil, fmt.Errorf("reading attachment %s: %w", p, err)
		}
		out = append(out, fileAttachment{Name: filepath.Base(real), Type: fileType(real, data), Data: data})
	}
	return out, nil
}

// fileType is a file's MIME type: by its extension, else by its content.
func fileType(name string, data []byte) string {
	if t := mime.TypeByExtension(filepath.Ext(name)); t != "" {
		return t
	}
	return http.DetectContentType(data[:min(len(data), 512)])
}

type downloadIn struct {
	accountArg
	MessageID    string `json:"message_id"`
	AttachmentID string `json:"attachment_id" jsonschema:"from read_message"`
}

type downloadOut struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
	Type string `json:"type"`
}

func (s *Server) downloadAttachmentTool(ctx context.Context, req *sdk.CallToolRequest, in downloadIn) (*sdk.CallToolResult, downloadOut, error) {
	var zero downloadOut
	if in.AttachmentID == "" {
		return nil, zero, errors.New("attachment_id is required: read_message lists the attachments")
	}
	email, err := s.account(in.Account)
	if err != nil {
		return nil, zero, err
	}
	m, err := s.getMessage(ctx, req, &email, in.MessageID)
	if err != nil {
		return nil, zero, err
	}
	part := findPart(m.Payload, in.AttachmentID)
	if part == nil || !isAttachment(part) {
		var ids []string
		for _, a := range attachments(m.Payload) {
			ids = append(ids, a.ID+" ("+a.Name+")")
		}
		return nil, zero, fmt.Errorf("message %s has no attachment %q; its attachments: %s", in.MessageID, in.AttachmentID, listText(ids))
	}
	var data []byte
	switch {
	case part.Body != nil && part.Body.AttachmentId != "":
		var body *gm.MessagePartBody
		err = s.api(ctx, req, &email, func(svc *gm.Service) (err error) {
			body, err = svc.Users.Messages.Attachments.Get("me", m.Id, part.Body.AttachmentId).Context(ctx).Do()
			return err
		})
		if err != nil {
			return nil, zero, explain(err, "downloading the attachment")
		}
		data = decodeData(body.Data)
	case part.Body != nil:
		data = decodeData(part.Body.Data)
	}
	a := Attachment{Name: part.Filename, Type: mimeType(part)}
	if a.Name == "" {
		a.Name = "part-" + in.AttachmentID + extensionFor(a.Type)
	}
	path, err := s.save(a.Name, data)
	if err != nil {
		return nil, zero, err
	}
	out := downloadOut{Path: path, Size: int64(len(data)), Type: a.Type}
	s.log.Info("saved an attachment", "account", email, "message", m.Id, "path", path)
	return text(fmt.Sprintf("Saved %s (%s, %s).", out.Path, out.Type, sizeText(out.Size))), out, nil
}

// save writes data to a new file named after name in the download folder:
// never over an existing file — "report (1).pdf" when report.pdf exists.
func (s *Server) save(name string, data []byte) (string, error) {
	dir := s.opts.DownloadDir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("making the download folder (x-mcptray.google.downloadDir): %w", err)
	}
	name = safeName(name)
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for n := 0; n < 10000; n++ {
		candidate := name
		if n > 0 {
			candidate = stem + " (" + strconv.Itoa(n) + ")" + ext
		}
		path := filepath.Join(dir, candidate)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("saving the attachment: %w", err)
		}
		_, werr := f.Write(data)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(path)
			return "", fmt.Errorf("saving the attachment: %w", werr)
		}
		return path, nil
	}
	return "", fmt.Errorf("saving the attachment: too many files named %s in %s", name, dir)
}
