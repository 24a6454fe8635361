package repocheck_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// checkedDocs are the docs whose Go names and file paths must exist: the
// ones that describe the code as it is. docs/performance.md is a dated log
// (files and runtime functions of its time), and google-accounts.md and
// conformance.md name other modules' types and folders.
var checkedDocs = []string{"docs/architecture.md", "CONTRIBUTING.md", "README.md", "docs/development.md",
	"docs/gateway.md", "docs/security.md", "docs/internals.md", "docs/secrets.md", "docs/assistants.md"}

// goName matches pkg.Name, pkg.Type.Member, Type.Member and
// folder/pkg.Name; see goNames for what around it counts.
var goName = regexp.MustCompile(`((?:[a-z][a-z0-9]*/)*[A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?`)

// fileExts are what follows a dot in a file's name, not a Go name.
var fileExts = map[string]bool{
	"go": true, "md": true, "json": true, "sh": true, "png": true, "db": true, "log": true, "key": true,
	"sock": true, "lock": true, "toml": true, "yaml": true, "yml": true, "txt": true, "txtar": true,
	"golden": true, "deb": true, "gz": true, "desktop": true, "test": true, "js": true, "ts": true,
	"mod": true, "sum": true, "conf": true, "service": true, "html": true, "com": true, "org": true,
	"io": true, "dev": true, "exe": true, "app": true, "tar": true, "zip": true, "d": true,
	// Windows packaging and the Wine harness: WiX sources, MSIs, C, DLLs.
	"wxs": true, "msi": true, "c": true, "dll": true,
}

// ref is a Go name a doc mentions: pkg or type, name, and a member of
// pkg.name (or "").
type ref struct{ qual, name, member string }

func (r ref) String() string {
	if r.member != "" {
		return r.qual + "." + r.name + "." + r.member
	}
	return r.qual + "." + r.name
}

// goNames finds what looks like a qualified Go name in text: not part of a
// longer dotted, slashed or dashed word (a file name, a URL, x-mcptray.listen,
// ${input:ID}), and not a file name (README.md, mcptray.db).
func goNames(text string) []ref {
	var refs []ref
	for _, m := range goName.FindAllStringSubmatchIndex(text, -1) {
		if m[0] > 0 && strings.ContainsRune("._/-<>$@*{:~%", rune(text[m[0]-1])) ||
			m[0] > 0 && isWordByte(text[m[0]-1]) {
			continue
		}
		if end := m[1]; end < len(text) {
			next := text[end]
			if isWordByte(next) || next == '/' || next == '-' ||
				next == '.' && end+1 < len(text) && isWordByte(text[end+1]) {
				continue
			}
		}
		r := ref{qual: text[m[2]:m[3]], name: text[m[4]:m[5]]}
		if m[6] >= 0 {
			r.member = text[m[6]:m[7]]
		}
		if fileExts[r.name] || fileExts[r.member] || len(r.qual) == 1 && len(r.name) == 1 { // e.g, i.e
			continue
		}
		refs = append(refs, r)
	}
	return refs
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// problem says why r names nothing in src, or returns "" when it names
// something (or something outside the module: http.Server, fyne.Do).
func (src *source) problem(r ref) string {
	if names, ok := src.pkgs[r.qual]; ok {
		if r.member == "" {
			if !names[r.name] {
				return fmt.Sprintf("package %s declares no %s", r.qual, r.name)
			}
			return ""
		}
		if !src.qualified[r.qual+"."+r.name][r.member] {
			return fmt.Sprintf("package %s has no type %s with a method or field %s", r.qual, r.name, r.member)
		}
		return ""
	}
	if strings.Contains(r.qual, "/") {
		return fmt.Sprintf("there is no package %s", r.qual)
	}
	if members, ok := src.members[r.qual]; ok {
		if !members[r.name] {
			return fmt.Sprintf("type %s has no method or field %s", r.qual, r.name)
		}
		if r.member != "" && src.members[r.name] != nil && !src.members[r.name][r.member] {
			// Type.Field.Member: the field's type is not known here; only a
			// type of the same name as the field is checked.
			return ""
		}
		return ""
	}
	if unicode.IsUpper(rune(r.qual[0])) {
		return fmt.Sprintf("there is no type %s in the module", r.qual)
	}
	return "" // a package outside the module
}

// filePath matches a path into the repo's folders: app/events.go,
// mcp/downstream/watchdog*.go, mcp/servers/..., scripts/deps.sh.
var filePath = regexp.MustCompile(`(?:^|[^\w/.\-])((?:app|assets|cli|cmd|conformance|docs|internal|mcp|packaging|scripts|store|ui|\.ci)/[\w./*\-]*[\w*])`)

// pathProblem says why a path a doc mentions names nothing in the repo.
func pathProblem(p string) string {
	p = strings.TrimSuffix(p, "/...")
	p = strings.TrimSuffix(p, "...")
	p = strings.TrimSuffix(p, ".")
	full := filepath.Join(root, p)
	if strings.Contains(p, "*") {
		if m, _ := filepath.Glob(full); len(m) == 0 {
			return "no file matches " + p
		}
		return ""
	}
	if _, err := os.Stat(full); err != nil {
		return "there is no " + p
	}
	return ""
}

// bareName matches a backticked Go identifier without a qualifier that has
// upper- and lowercase letters (`healthyUptime`, `SetServer`; not `PATH`,
// `ready` or `MCPTRAY_DATA`).
var bareName = regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_]*)`")

func bareNames(text string) []string {
	var names []string
	for _, m := range bareName.FindAllStringSubmatch(text, -1) {
		n := m[1]
		if strings.ToLower(n) != n && strings.ToUpper(n) != n && !strings.Contains(n, "_") {
			names = append(names, n)
		}
	}
	return names
}

// mdLink matches a Markdown link's target: [text](target) or
// [text](target#anchor).
var mdLink = regexp.MustCompile(`\]\(([^()\s#]*)(#[^()\s]*)?\)`)

// linkProblem says why a link in doc leads nowhere in the repo, or returns ""
// (other sites, and anchors, are not checked).
func linkProblem(doc, target string) string {
	if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	if _, err := os.Stat(filepath.Join(root, filepath.Dir(doc), target)); err != nil {
		return "the link leads nowhere"
	}
	return ""
}

// TestDocsNameWhatExists fails when a checked doc mentions a Go name
// (`app.Core`, `downstream.Session`, `Core.Run`, `wire.PipeFile.Written`)
// or a file of the repo (app/events.go) that does not exist, or links to a
// file that does not.
func TestDocsNameWhatExists(t *testing.T) {
	src := readSource(t, root)
	for _, want := range []string{"app", "downstream", "mcp/wire", "main"} {
		if len(src.pkgs[want]) == 0 {
			t.Fatalf("read no package %s; is %s the module's root?", want, root)
		}
	}
	for _, doc := range checkedDocs {
		text := readDoc(t, doc)
		seen := map[string]bool{}
		for _, r := range goNames(text) {
			if p := src.problem(r); p != "" && !seen[r.String()] {
				seen[r.String()] = true
				t.Errorf("%s mentions %s: %s", doc, r, p)
			}
		}
		for _, n := range bareNames(text) {
			if !src.words[n] && !seen[n] {
				seen[n] = true
				t.Errorf("%s mentions `%s`: no Go file of the module has that word", doc, n)
			}
		}
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			if p := linkProblem(doc, m[1]); p != "" {
				t.Errorf("%s links to %s: %s", doc, m[1], p)
			}
		}
		for _, m := range filePath.FindAllStringSubmatch(text, -1) {
			if p := pathProblem(m[1]); p != "" && !seen[m[1]] {
				seen[m[1]] = true
				t.Errorf("%s mentions %s: %s", doc, m[1], p)
			}
		}
	}
}

// docRef matches a doc of the repo that a comment or a message names.
// Only docs/ itself holds docs (another project's docs/cli/x.md is not ours).
var docRef = regexp.MustCompile(`(?:^|[^\w/.-])((?:docs/[\w.-]+|README|CONTRIBUTING)\.md)`)

// TestSourceNamesRealDocs fails when a Go file, the Makefile or a script
// names a doc that does not exist (a comment pointing at a doc that was
// renamed).
func TestSourceNamesRealDocs(t *testing.T) {
	var files []string
	for _, pattern := range []string{"Makefile", ".ci/*", "scripts/*.sh", "conformance/*.sh", "packaging/*.sh"} {
		m, _ := filepath.Glob(filepath.Join(root, pattern))
		files = append(files, m...)
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, ".go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("listing the source: %v", err)
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("reading %s: %v", path, err)
		}
		if !bytes.Contains(data, []byte(".md")) {
			continue
		}
		for _, m := range docRef.FindAllStringSubmatch(string(data), -1) {
			if _, err := os.Stat(filepath.Join(root, m[1])); err != nil {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s names %s, which does not exist", rel, m[1])
			}
		}
	}
}

func TestGoNames(t *testing.T) {
	t.Parallel()
	text := "`app.Core` and Core.Run, `wire.PipeFile.Written`; mcptray.db, README.md, x-mcptray.listen, " +
		"google.golang.org/api, ${input:ID}.x, app/events.go, e.g. this, i.e. that, `config.Parse`. The `mcp/wire.Peek`"
	var got []string
	for _, r := range goNames(text) {
		got = append(got, r.String())
	}
	want := "app.Core Core.Run wire.PipeFile.Written config.Parse mcp/wire.Peek"
	if strings.Join(got, " ") != want {
		t.Errorf("goNames = %q, want %q", strings.Join(got, " "), want)
	}
}

// TestDocsCheckFails shows the check at work on a made-up module: each
// name that no longer exists is reported.
func TestDocsCheckFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(path, text string) {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, path), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("app/core.go", "package app\n\ntype Core struct{ mu int }\n\nfunc (c *Core) Run() {}\n\nfunc New() *Core { return nil }\n")
	write("app/inbox/inbox.go", "package inbox\n\ntype Request struct{ ID string }\n")
	src := readSource(t, dir)
	var got []string
	for _, r := range goNames("`app.New`, `app.Core`, `Core.Run`, `Core.mu`, `inbox.Request.ID`, `app/inbox.Request`, " +
		"`app.InboxRequest`, `Core.Stop`, `inbox.Request.Kind`, `Inbox.Add`, `app/events.Event`, `http.Server`") {
		if p := src.problem(r); p != "" {
			got = append(got, r.String()+": "+p)
		}
	}
	want := []string{
		"app.InboxRequest: package app declares no InboxRequest",
		"Core.Stop: type Core has no method or field Stop",
		"inbox.Request.Kind: package inbox has no type Request with a method or field Kind",
		"Inbox.Add: there is no type Inbox in the module",
		"app/events.Event: there is no package app/events",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
