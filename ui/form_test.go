package ui

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/inbox"
)

func ptr[T any](v T) *T { return &v }

// typesFields has every field type of the 2025-11-25 elicitation schema,
// as app reads them (mcptest's "types" form), and a password.
func typesFields() []inbox.Field {
	return []inbox.Field{
		{Name: "name", Type: "string", Title: "Name", Required: true, MinLength: ptr(2), MaxLength: ptr(20)},
		{Name: "email", Type: "string", Title: "Email", Format: "email"},
		{Name: "site", Type: "string", Format: "uri"},
		{Name: "born", Type: "string", Format: "date"},
		{Name: "meeting", Type: "string", Format: "date-time"},
		{Name: "age", Type: "integer", Required: true, Minimum: ptr(0.0), Maximum: ptr(150.0)},
		{Name: "score", Type: "number", Minimum: ptr(0.0), Maximum: ptr(10.0)},
		{Name: "subscribe", Type: "boolean", Title: "Subscribe?"},
		{Name: "color", Type: "string", Required: true, Options: []inbox.Option{{Value: "red"}, {Value: "green"}, {Value: "blue"}}},
		{Name: "size", Type: "string", Options: []inbox.Option{{Value: "s", Title: "Small"}, {Value: "l", Title: "Large"}}},
		{Name: "tags", Type: "array", Options: []inbox.Option{{Value: "a"}, {Value: "b"}, {Value: "c"}}, MinItems: ptr(1), MaxItems: ptr(2)},
		{Name: "pets", Type: "array", Options: []inbox.Option{{Value: "cat", Title: "Cat"}, {Value: "dog", Title: "Dog"}}},
		{Name: "password", Type: "string", Title: "Sudo password", Secret: true, Required: true,
			Description: "For sudo on prod-1; asked once, kept in memory for 5 minutes."},
	}
}

func typesRequest() inbox.Request {
	return inbox.Request{
		ID: "a1b2c3d4", Server: "ssh", Tool: "exec", Client: "Claude Desktop", Source: inbox.SourceServer,
		Message: "Restarting nginx on prod-1 needs a few details.", Mode: "form", Fields: typesFields(),
		Created: testNow.Add(-10 * time.Second), Deadline: testNow.Add(4*time.Minute + 50*time.Second),
	}
}

// answers records a fake core's Answer calls.
type answers struct {
	got []inbox.Answer
	ids []string
	err error // returned by the next call
}

func (a *answers) answer(id string, ans inbox.Answer) error {
	a.ids = append(a.ids, id)
	a.got = append(a.got, ans)
	err := a.err
	a.err = nil
	return err
}

// showRequest puts a request view of req in a test window.
func showRequest(t *testing.T, req inbox.Request) (*requestView, *answers, *[]string, fyne.Window) {
	t.Helper()
	failOnThreadErrors(t)
	test.NewTempApp(t)
	ans := &answers{}
	var done []string
	v := newRequestView(req, func() time.Time { return testNow }, ans.answer, func(id string) { done = append(done, id) })
	w := test.NewTempWindow(t, v.root)
	w.Resize(fyne.NewSize(480, 1400))
	return v, ans, &done, w
}

// inputOf is field name's input in v's form.
func inputOf(t *testing.T, v *requestView, name string) fieldInput {
	t.Helper()
	for i, f := range v.form.fields {
		if f.Name == name {
			return v.form.inputs[i]
		}
	}
	t.Fatalf("no field %q", name)
	return nil
}

func errorOf(v *requestView, name string) string {
	for i, f := range v.form.fields {
		if f.Name == name && v.form.errs[i].Visible() {
			return v.form.errs[i].Text
		}
	}
	return ""
}

func TestFormHasAnInputPerFieldType(t *testing.T) {
	v, _, _, _ := showRequest(t, typesRequest())
	for name, want := range map[string]string{
		"name": "*ui.formEntry", "email": "*ui.formEntry", "site": "*ui.formEntry", "born": "*ui.formEntry",
		"meeting": "*ui.formEntry", "age": "*ui.formEntry", "score": "*ui.formEntry",
		"subscribe": "*widget.Check", "color": "*widget.Select", "size": "*widget.Select",
		"tags": "*widget.CheckGroup", "pets": "*widget.CheckGroup", "password": "*ui.formEntry",
	} {
		if got := fmt.Sprintf("%T", inputOf(t, v, name).object()); got != want {
			t.Errorf("field %s: input %s, want %s", name, got, want)
		}
	}
	if got := inputOf(t, v, "size").object().(*widget.Select).Options; !reflect.DeepEqual(got, []string{"Small", "Large"}) {
		t.Errorf("size options %q, want the titles", got)
	}
	if got := inputOf(t, v, "age").object().(*formEntry).PlaceHolder; got != "A whole number from 0 to 150" {
		t.Errorf("age placeholder %q", got)
	}
	if got := inputOf(t, v, "email").object().(*formEntry).PlaceHolder; got != "name@example.com" {
		t.Errorf("email placeholder %q", got)
	}
}

func TestFormMasksSecretFieldsWithARevealToggle(t *testing.T) {
	v, _, _, _ := showRequest(t, typesRequest())
	pw := inputOf(t, v, "password").object().(*formEntry)
	if !pw.Password {
		t.Fatal("the secret field is not masked")
	}
	if inputOf(t, v, "name").object().(*formEntry).Password {
		t.Error("a plain field is masked")
	}
	test.Type(pw, "hunter2")
	reveal, ok := pw.ActionItem.(fyne.Tappable)
	if !ok {
		t.Fatalf("the masked entry has no reveal toggle (action item %T)", pw.ActionItem)
	}
	test.Tap(reveal)
	if pw.Password {
		t.Error("the reveal toggle did not unmask the entry")
	}
	test.Tap(reveal)
	if !pw.Password {
		t.Error("the reveal toggle did not mask the entry again")
	}
}

func TestFormValidationMessages(t *testing.T) {
	v, ans, done, _ := showRequest(t, typesRequest())
	test.Tap(v.accept)
	if len(ans.got) != 0 {
		t.Fatalf("answered %v with required fields empty", ans.got)
	}
	for _, name := range []string{"name", "age", "color", "password"} {
		if got := errorOf(v, name); got != "Required." {
			t.Errorf("%s error = %q, want Required.", name, got)
		}
	}
	if got := errorOf(v, "email"); got != "" {
		t.Errorf("optional empty email shows %q", got)
	}

	typ := func(name, text string) { test.Type(inputOf(t, v, name).object().(*formEntry), text) }
	typ("name", "a")
	typ("email", "not-an-email")
	typ("site", "example")
	typ("born", "3 July")
	typ("meeting", "tomorrow")
	typ("age", "200")
	typ("score", "lots")
	for name, want := range map[string]string{
		"name":    "Must be at least 2 characters long.",
		"email":   "Must be an email address like name@example.com.",
		"site":    "Must be a URI like https://example.com/page.",
		"born":    "Must be a date like 2026-07-03.",
		"meeting": "Must be a date and time like 2026-07-03T14:30:00Z.",
		"age":     "Must be at most 150.",
		"score":   "Must be a number.",
	} {
		if got := errorOf(v, name); got != want {
			t.Errorf("%s error = %q, want %q (re-checked as typed, after the first Accept)", name, got, want)
		}
	}
	inputOf(t, v, "tags").object().(*widget.CheckGroup).SetSelected([]string{"a", "b", "c"})
	if got := errorOf(v, "tags"); got != "Takes at most 2 choice(s)." {
		t.Errorf("tags error = %q", got)
	}
	test.Tap(v.accept)
	if len(ans.got) != 0 || len(*done) != 0 {
		t.Errorf("answered %v with invalid fields", ans.got)
	}
}

// fillTypes fills the types form with good values.
func fillTypes(t *testing.T, v *requestView) {
	t.Helper()
	typ := func(name, text string) {
		e := inputOf(t, v, name).object().(*formEntry)
		e.SetText("")
		test.Type(e, text)
	}
	typ("name", "Ada")
	typ("email", "ada@example.com")
	typ("age", "36")
	typ("score", "9.5")
	typ("password", "s3cret!")
	inputOf(t, v, "color").object().(*widget.Select).SetSelected("green")
	inputOf(t, v, "size").object().(*widget.Select).SetSelected("Large")
	test.Tap(inputOf(t, v, "subscribe").object().(*widget.Check))
	inputOf(t, v, "pets").object().(*widget.CheckGroup).SetSelected([]string{"Dog"})
}

func TestFormAcceptSendsTypedValuesAndForgetsThem(t *testing.T) {
	v, ans, done, _ := showRequest(t, typesRequest())
	fillTypes(t, v)
	test.Tap(v.accept)
	if len(ans.got) != 1 {
		t.Fatalf("Answer calls: %d, want 1 (errors shown: %q)", len(ans.got), v.problem.Text)
	}
	want := inbox.Answer{Action: inbox.ActionAccept, By: "ui", Content: map[string]any{
		"name": "Ada", "email": "ada@example.com", "age": int64(36), "score": 9.5, "password": "s3cret!",
		"color": "green", "size": "l", "subscribe": true, "pets": []string{"dog"},
	}}
	if !reflect.DeepEqual(ans.got[0], want) {
		t.Errorf("answer = %#v\nwant %#v", ans.got[0], want)
	}
	if ans.ids[0] != "a1b2c3d4" || len(*done) != 1 || (*done)[0] != "a1b2c3d4" {
		t.Errorf("answered %q, done %q", ans.ids, *done)
	}
	for _, name := range []string{"name", "password", "age"} {
		if got := inputOf(t, v, name).object().(*formEntry).Text; got != "" {
			t.Errorf("%s still holds %q after the answer", name, got)
		}
	}
}

func TestFormDefaultsArePrefilled(t *testing.T) {
	req := inbox.Request{ID: "d", Server: "conf", Mode: "form", Fields: []inbox.Field{
		{Name: "name", Type: "string", Default: "John Doe", HasDefault: true},
		{Name: "age", Type: "integer", Default: int64(30), HasDefault: true},
		{Name: "score", Type: "number", Default: 95.5, HasDefault: true},
		{Name: "status", Type: "string", Options: []inbox.Option{{Value: "active"}, {Value: "inactive"}}, Default: "active", HasDefault: true},
		{Name: "verified", Type: "boolean", Default: true, HasDefault: true},
		{Name: "tags", Type: "array", Options: []inbox.Option{{Value: "a"}, {Value: "b"}}, Default: []string{"b"}, HasDefault: true},
	}}
	v, ans, _, _ := showRequest(t, req)
	test.Tap(v.accept)
	want := map[string]any{"name": "John Doe", "age": int64(30), "score": 95.5, "status": "active", "verified": true, "tags": []string{"b"}}
	if len(ans.got) != 1 || !reflect.DeepEqual(ans.got[0].Content, want) {
		t.Errorf("answers %v, want the defaults %v", ans.got, want)
	}
}

func TestFormKeys(t *testing.T) {
	v, ans, _, w := showRequest(t, typesRequest())
	if f := v.first(); f != inputOf(t, v, "name").focusable() {
		t.Errorf("first input %T, want the name entry", f)
	}
	fillTypes(t, v)
	pw := inputOf(t, v, "password").object().(*formEntry)
	w.Canvas().Focus(pw)
	test.Type(pw, "x")
	pw.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if len(ans.got) != 1 || ans.got[0].Action != inbox.ActionAccept {
		t.Fatalf("Enter answered %v, want accept", ans.got)
	}
	v2, ans2, _, _ := showRequest(t, typesRequest())
	inputOf(t, v2, "name").object().(*formEntry).TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if len(ans2.got) != 1 || ans2.got[0].Action != inbox.ActionCancel || ans2.got[0].Content != nil {
		t.Errorf("Escape answered %v, want cancel without content", ans2.got)
	}
}

func TestDeclineAndCancelSendNoValues(t *testing.T) {
	v, ans, _, w := showRequest(t, typesRequest())
	test.Type(inputOf(t, v, "password").object().(*formEntry), "typed")
	test.Tap(button(t, w.Canvas().Content(), "Decline"))
	v2, ans2, _, w2 := showRequest(t, typesRequest())
	_ = v2
	test.Tap(button(t, w2.Canvas().Content(), "Cancel"))
	got := append(ans.got, ans2.got...)
	if len(got) != 2 || got[0].Action != inbox.ActionDecline || got[1].Action != inbox.ActionCancel || got[0].Content != nil {
		t.Errorf("answers %v, want decline then cancel, no content", got)
	}
	if e := inputOf(t, v, "password").object().(*formEntry); e.Text != "" {
		t.Error("the typed secret outlived the decline")
	}
}

func TestCoreRefusalsShowInline(t *testing.T) {
	v, ans, done, _ := showRequest(t, typesRequest())
	fillTypes(t, v)
	ans.err = &inbox.InvalidAnswerError{Field: "name", Reason: "is taken"}
	test.Tap(v.accept)
	if got := errorOf(v, "name"); got != "Is taken." {
		t.Errorf("name error = %q after the core refused it", got)
	}
	if len(*done) != 0 {
		t.Error("a refused answer closed the request")
	}
	ans.err = errors.New("talking to mcptray: connection refused")
	test.Tap(v.accept)
	if !v.problem.Visible() || v.problem.Text != "talking to mcptray: connection refused" {
		t.Errorf("problem shown: %q", v.problem.Text)
	}
	ans.err = fmt.Errorf("request a1b2c3d4 was already closed (accept, by cli): %w", inbox.ErrRequestClosed)
	test.Tap(v.accept)
	if len(*done) != 1 {
		t.Error("a request answered elsewhere stays on screen")
	}
}

func TestURLRequest(t *testing.T) {
	req := inbox.Request{ID: "u1", Server: "gmail", Tool: "connect_account", Mode: "url",
		Message: "Sign in to Google to let gmail read your mail.",
		URL:     "https://accounts.google.com/o/oauth2/v2/auth?client_id=x&state=y", Host: "accounts.google.com",
		Created: testNow, Deadline: testNow.Add(5 * time.Minute)}
	v, ans, done, w := showRequest(t, req)
	if v.form != nil {
		t.Error("a URL request has a form")
	}
	var texts []string
	for _, o := range test.LaidOutObjects(w.Canvas().Content()) {
		if r, ok := o.(*widget.RichText); ok {
			texts = append(texts, r.String())
		}
	}
	if !strings.Contains(strings.Join(texts, "\n"), "accounts.google.com") {
		t.Errorf("the host is not shown: %q", texts)
	}
	if len(buttons(w.Canvas().Content(), "Accept")) != 0 {
		t.Error("a URL request has Accept; want Open in browser")
	}
	test.Tap(button(t, w.Canvas().Content(), "Open in browser"))
	if len(ans.got) != 1 || !reflect.DeepEqual(ans.got[0], inbox.Answer{Action: inbox.ActionAccept, By: "ui"}) || len(*done) != 1 {
		t.Errorf("answers %v, done %v", ans.got, *done)
	}
}

func TestConfirmRequest(t *testing.T) {
	req := inbox.Request{ID: "c1", Server: "notes", Tool: "delete_all", Mode: "form", Confirm: true,
		Message: "Delete all 214 notes?", Created: testNow, Deadline: testNow.Add(time.Minute)}
	v, ans, _, _ := showRequest(t, req)
	if v.form != nil {
		t.Error("a yes/no request has a form")
	}
	test.Tap(v.accept)
	if len(ans.got) != 1 || ans.got[0].Action != inbox.ActionAccept {
		t.Errorf("answers %v", ans.got)
	}
}

// A yes/no request whose server named its yes (Gmail's "Send") offers
// that and Cancel, which declines.
func TestConfirmRequestWithItsOwnLabel(t *testing.T) {
	req := inbox.Request{ID: "c2", Server: "gmail", Tool: "send", Mode: "form", Confirm: true, AcceptLabel: "Send",
		Message: "From: ada@example.com\nTo: bob@example.com\nSubject: Lunch?", Created: testNow, Deadline: testNow.Add(time.Minute)}
	v, ans, _, _ := showRequest(t, req)
	if v.accept.Text != "Send" {
		t.Errorf("accept button %q, want Send", v.accept.Text)
	}
	var labels []string
	for _, o := range test.LaidOutObjects(v.root) {
		if b, ok := o.(*widget.Button); ok {
			labels = append(labels, b.Text)
		}
	}
	if !reflect.DeepEqual(labels, []string{"Send", "Cancel"}) {
		t.Errorf("buttons %q, want Send and Cancel", labels)
	}
	test.Tap(button(t, v.root, "Cancel"))
	if len(ans.got) != 1 || ans.got[0].Action != inbox.ActionDecline {
		t.Errorf("Cancel answered %v, want decline", ans.got)
	}
}

func TestCountdown(t *testing.T) {
	v, _, _, _ := showRequest(t, typesRequest())
	if got := v.countdown.Text; got != "4:50 left" {
		t.Errorf("countdown %q, want 4:50 left", got)
	}
	v.now = func() time.Time { return testNow.Add(5 * time.Minute) }
	v.tick()
	if got := v.countdown.Text; got != "Time is up" {
		t.Errorf("countdown after the deadline %q", got)
	}
}

func TestRequestNotice(t *testing.T) {
	pw := inbox.Request{ID: "r1", Server: "ssh", Message: "sudo on prod-1", Mode: "form",
		Fields: []inbox.Field{{Name: "password", Title: "Sudo password", Secret: true}}}
	want := notice{key: "inbox/r1", title: "ssh needs your sudo password", body: "sudo on prod-1", expire: untilWithdrawn}
	if n := requestNotice(pw); n != want {
		t.Errorf("notice %+v, want %+v", n, want)
	}
	key := pw
	key.Fields = []inbox.Field{{Name: "k", Title: "SSH key passphrase"}}
	if n := requestNotice(key); n.title != "ssh needs your SSH key passphrase" {
		t.Errorf("notice %q", n.title)
	}
	if n := requestNotice(typesRequest()); n.title != "ssh needs your input" {
		t.Errorf("notice %q", n.title)
	}
	if n := requestNotice(inbox.Request{Server: "gmail", Mode: "url", Host: "accounts.google.com"}); n.title != "gmail asks you to open accounts.google.com" {
		t.Errorf("notice %q", n.title)
	}
	if n := requestNotice(inbox.Request{Server: "notes", Mode: "form", Confirm: true}); n.title != "notes asks you to confirm" {
		t.Errorf("notice %q", n.title)
	}
}
