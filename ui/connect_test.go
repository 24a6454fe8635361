package ui

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// button finds the button labelled text under o (the first one).
func button(t *testing.T, o fyne.CanvasObject, text string) *widget.Button {
	t.Helper()
	for _, x := range test.LaidOutObjects(o) {
		if b, ok := x.(*widget.Button); ok && b.Text == text {
			return b
		}
	}
	t.Fatalf("no button %q", text)
	return nil
}

// buttons finds every button labelled text under o.
func buttons(o fyne.CanvasObject, text string) []*widget.Button {
	var out []*widget.Button
	for _, x := range test.LaidOutObjects(o) {
		if b, ok := x.(*widget.Button); ok && b.Text == text {
			out = append(out, b)
		}
	}
	return out
}

func TestConnectSnippetsAreValidJSONNamingTheExecutable(t *testing.T) {
	for _, sn := range snippets(`/opt/my "apps"/mcptray`) {
		var v any
		if err := json.Unmarshal([]byte(sn.text), &v); err != nil {
			t.Errorf("%s snippet is not JSON: %v\n%s", sn.title, err, sn.text)
		}
		if !strings.Contains(sn.text, `"/opt/my \"apps\"/mcptray"`) {
			t.Errorf("%s snippet does not name the executable:\n%s", sn.title, sn.text)
		}
	}
}

func TestConnectCopyButtons(t *testing.T) {
	m, w, _ := showMain(t, &fakeCore{}, twoServers())
	m.show(tabAssistants)
	root := w.Canvas().Content()
	copies := buttons(root, "Copy")
	if len(copies) != 3 {
		t.Fatalf("%d Copy buttons, want one per assistant (3)", len(copies))
	}
	clip := fyne.CurrentApp().Clipboard()
	for i, sn := range snippets(testExe) {
		test.Tap(copies[i])
		if got := clip.Content(); got != sn.text {
			t.Errorf("Copy of %s put %q on the clipboard, want its snippet", sn.title, got)
		}
	}
	test.Tap(button(t, root, "Copy URL"))
	if got := clip.Content(); got != "http://127.0.0.1:8765/mcp" {
		t.Errorf("Copy URL put %q on the clipboard", got)
	}
	test.Tap(button(t, root, "Copy token"))
	if got := clip.Content(); got != "fake-token" {
		t.Errorf("Copy token put %q on the clipboard, want the token", got)
	}
	if got := m.assistants.connect.feedback.Text; strings.Contains(got, "fake-token") || !strings.Contains(got, "Token copied") {
		t.Errorf("feedback after Copy token = %q; want it to say so, without the token", got)
	}
}

func TestConnectTokenError(t *testing.T) {
	c := &fakeCore{token: func() (string, error) {
		return "", errors.New("the keyring did not answer within 30s (is it locked?)")
	}}
	m, w, _ := showMain(t, c, twoServers())
	m.show(tabAssistants)
	fyne.CurrentApp().Clipboard().SetContent("before")
	test.Tap(button(t, w.Canvas().Content(), "Copy token"))
	if got := fyne.CurrentApp().Clipboard().Content(); got != "before" {
		t.Errorf("clipboard = %q after a failed Copy token, want it unchanged", got)
	}
	want := "No token: the keyring did not answer within 30s (is it locked?)"
	if got := m.assistants.connect.feedback.Text; got != want {
		t.Errorf("feedback = %q, want %q", got, want)
	}
}

func TestConnectEndpointStates(t *testing.T) {
	m, _, _ := showMain(t, &fakeCore{}, twoServers())
	st := twoServers()
	st.Endpoint, st.EndpointError = "", "HTTP endpoint off: listening on 127.0.0.1:8765: address already in use"
	m.apply(st)
	if got := m.assistants.connect.url.Text; got != st.EndpointError || !m.assistants.connect.copyURL.Disabled() {
		t.Errorf("URL shows %q (copy disabled %v), want the error and Copy URL disabled", got, m.assistants.connect.copyURL.Disabled())
	}
	st.EndpointError = ""
	m.apply(st)
	if got := m.assistants.connect.url.Text; got != "The HTTP endpoint is starting…" {
		t.Errorf("URL shows %q while starting", got)
	}
	if m.assistants.connect.warning.Visible() {
		t.Errorf("a warning shows while starting: %q", m.assistants.connect.warning.Text)
	}

	// Its port was taken: the URL in use, and the warning under it.
	st.Endpoint = "http://127.0.0.1:41234/mcp"
	st.EndpointWarning = "port 7823 is taken by another program, so mcptray listens on port 41234 instead, until the next start"
	m.apply(st)
	if got := m.assistants.connect.url.Text; got != st.Endpoint || m.assistants.connect.copyURL.Disabled() {
		t.Errorf("URL shows %q (copy disabled %v), want %q", got, m.assistants.connect.copyURL.Disabled(), st.Endpoint)
	}
	if !m.assistants.connect.warning.Visible() || m.assistants.connect.warning.Text != st.EndpointWarning {
		t.Errorf("warning visible %v %q, want %q", m.assistants.connect.warning.Visible(), m.assistants.connect.warning.Text, st.EndpointWarning)
	}
	st.EndpointWarning = ""
	m.apply(st)
	if m.assistants.connect.warning.Visible() {
		t.Errorf("the warning stays after the port is back: %q", m.assistants.connect.warning.Text)
	}
}
