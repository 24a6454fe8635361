package googletest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
)

// Discovery is a Google discovery document as contract tests read it:
// the methods of an API, their paths, parameters and scopes. The
// documents ship inside the module google.golang.org/api.
type Discovery struct {
	ServicePath string                     `json:"servicePath"`
	Parameters  map[string]json.RawMessage `json:"parameters"` // those every method takes
	Methods     []*DiscoveryMethod         `json:"-"`
}

// DiscoveryMethod is one REST method of a discovery document.
type DiscoveryMethod struct {
	ID          string                     `json:"id"`
	Path        string                     `json:"path"`
	HTTPMethod  string                     `json:"httpMethod"`
	Parameters  map[string]json.RawMessage `json:"parameters"`
	Scopes      []string                   `json:"scopes"`
	MediaUpload *struct {
		Protocols map[string]struct {
			Path string `json:"path"`
		} `json:"protocols"`
	} `json:"mediaUpload"`

	re, uploadRE *regexp.Regexp
}

type discoveryResource struct {
	Methods   map[string]*DiscoveryMethod  `json:"methods"`
	Resources map[string]discoveryResource `json:"resources"`
}

// LoadDiscovery reads the discovery document at rel in the module
// google.golang.org/api this build uses ("gmail/v1/gmail-api.json"). It
// runs the go command to find the module.
func LoadDiscovery(rel string) (*Discovery, error) {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	out, err := exec.Command(goBin, "list", "-m", "-f", "{{.Dir}}", "google.golang.org/api").Output()
	if err != nil {
		return nil, fmt.Errorf("finding google.golang.org/api: %w", err)
	}
	b, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), filepath.FromSlash(rel)))
	if err != nil {
		return nil, fmt.Errorf("reading the discovery document: %w", err)
	}
	var doc struct {
		Discovery
		Resources map[string]discoveryResource `json:"resources"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("reading the discovery document: %w", err)
	}
	d := doc.Discovery
	var walk func(r discoveryResource)
	walk = func(r discoveryResource) {
		for _, m := range r.Methods {
			d.Methods = append(d.Methods, m)
		}
		for _, sub := range r.Resources {
			walk(sub)
		}
	}
	for _, r := range doc.Resources {
		walk(r)
	}
	sort.Slice(d.Methods, func(i, j int) bool { return d.Methods[i].ID < d.Methods[j].ID })
	param := regexp.MustCompile(`\\\{\+?[A-Za-z]+\\\}`)
	pattern := func(p string) *regexp.Regexp {
		return regexp.MustCompile("^" + param.ReplaceAllString(regexp.QuoteMeta(p), `[^/]+`) + "$")
	}
	for _, m := range d.Methods {
		m.re = pattern("/" + d.ServicePath + m.Path)
		if m.MediaUpload != nil {
			m.uploadRE = pattern(m.MediaUpload.Protocols["simple"].Path)
		}
	}
	return &d, nil
}

// Match finds the method a request's method and path (or a route
// pattern's: its {wildcards} match any segment) call; upload says the
// path is the method's media upload path. It returns nil for none.
func (d *Discovery) Match(method, path string) (m *DiscoveryMethod, upload bool) {
	for _, m := range d.Methods {
		if m.HTTPMethod != method {
			continue
		}
		if m.re.MatchString(path) {
			return m, false
		}
		if m.uploadRE != nil && m.uploadRE.MatchString(path) {
			return m, true
		}
	}
	return nil, false
}

// CheckRequests returns what in reqs the document does not have: a
// method and path that is no method of it, a query parameter neither the
// method nor every method takes. The upload_id of a resumable upload's
// session URL (which Google makes, and the client posts its chunks to)
// is allowed on upload paths.
func (d *Discovery) CheckRequests(reqs []Request) []string {
	var problems []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			problems = append(problems, p)
		}
	}
	for _, r := range reqs {
		m, upload := d.Match(r.Method, r.Path)
		if m == nil && r.Method == "POST" && r.Query.Get("upload_id") != "" {
			m, upload = d.Match("PUT", r.Path) // a chunk of a PUT's resumable upload
		}
		if m == nil {
			add(fmt.Sprintf("%s %s is no method of the discovery document", r.Method, r.Path))
			continue
		}
		for k := range r.Query {
			_, ok := m.Parameters[k]
			_, global := d.Parameters[k]
			if !ok && !global && !(upload && k == "upload_id") {
				add(fmt.Sprintf("%s: parameter %q is not in the discovery document", m.ID, k))
			}
		}
	}
	return problems
}
