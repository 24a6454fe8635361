package googletest

import (
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// gmailDiscovery is Google's discovery document of Gmail, read once.
var gmailDiscovery = sync.OnceValues(func() (*Discovery, error) { return LoadDiscovery("gmail/v1/gmail-api.json") })

// newTestServer starts a fake for a Gmail test. When the test ends, every
// Gmail request the test made is checked against Google's discovery
// document (its method and path, its query parameters), and the fake
// closes.
func newTestServer(t *testing.T) *Server {
	t.Helper()
	s := New()
	t.Cleanup(func() {
		s.Close()
		d, err := gmailDiscovery()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range d.CheckRequests(s.RecordedGmailRequests()) {
			t.Errorf("contract with the discovery document: %s", p)
		}
	})
	return s
}

// TestGmailContractRoutes: every route the fake serves is a method of
// Google's discovery document, at its path (and media upload path), and
// takes only scopes the document lists for it.
func TestGmailContractRoutes(t *testing.T) {
	d, err := gmailDiscovery()
	if err != nil {
		t.Fatal(err)
	}
	s := New()
	defer s.Close()
	served := map[string]bool{}
	for _, rt := range s.gmail.routes {
		method, path, _ := strings.Cut(rt.pattern, " ")
		m, _ := d.Match(method, GmailBase+path)
		if m == nil {
			t.Errorf("%s %s is no method of the discovery document", method, GmailBase+path)
			continue
		}
		served[m.ID] = true
		for _, sc := range rt.scopes {
			if !slices.Contains(m.Scopes, sc) {
				t.Errorf("%s takes %s, which the discovery document does not list for it", m.ID, sc)
			}
		}
		if rt.upload != (m.MediaUpload != nil) {
			t.Errorf("%s: the fake takes uploads %v, the discovery document %v", m.ID, rt.upload, m.MediaUpload != nil)
		}
		if rt.upload {
			if um, upload := d.Match(method, "/upload"+GmailBase+path); um != m || !upload {
				t.Errorf("%s: /upload%s%s is not its upload path", m.ID, GmailBase, path)
			}
		}
	}
	var missing []string
	for _, m := range d.Methods {
		if !served[m.ID] {
			missing = append(missing, m.ID)
		}
	}
	t.Logf("methods the fake does not serve (404 from it): %s", strings.Join(missing, " "))
}

// TestDiscoveryCheckRequests: what the contract check refuses.
func TestDiscoveryCheckRequests(t *testing.T) {
	d, err := gmailDiscovery()
	if err != nil {
		t.Fatal(err)
	}
	req := func(method, path, query string) Request {
		q, _ := url.ParseQuery(query)
		return Request{Method: method, Path: path, Query: q}
	}
	got := d.CheckRequests([]Request{
		req("GET", "/gmail/v1/users/me/messages", "q=x&maxResults=3&alt=json&prettyPrint=false"),
		req("POST", "/upload/gmail/v1/users/me/drafts/r1", "uploadType=resumable&upload_id=abc"),
		req("GET", "/gmail/v1/users/me/messages", "query=x"),
		req("GET", "/gmail/v1/users/me/messages/m1", "upload_id=abc"),
		req("GET", "/gmail/v1/users/me/mail", ""),
		req("POST", "/gmail/v1/users/me/messages/m1", ""),
	})
	want := []string{
		`gmail.users.messages.list: parameter "query" is not in the discovery document`,
		`gmail.users.messages.get: parameter "upload_id" is not in the discovery document`,
		"GET /gmail/v1/users/me/mail is no method of the discovery document",
		"POST /gmail/v1/users/me/messages/m1 is no method of the discovery document",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
