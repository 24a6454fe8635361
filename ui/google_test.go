package ui

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// googleTestScreen is a Google tab on fake g in a test window; sign-ins
// run inline.
func googleTestScreen(t *testing.T, g *fakeGoogle, c *fakeCore) (*googleScreen, fyne.Window, *recorded, *[]string) {
	t.Helper()
	failOnThreadErrors(t)
	a := test.NewTempApp(t)
	if c == nil {
		c = &fakeCore{}
	}
	c.fakeGoogle = g
	env, rec := testEnv(t, a, c)
	w := test.NewTempWindow(t, widget.NewLabel(""))
	w.Resize(fyne.NewSize(900, 560))
	env.window = func() fyne.Window { return w }
	var opened []string
	env.openURL = func(u *url.URL) { opened = append(opened, u.String()) }
	s := newGoogleScreen(env)
	s.background = func(f func()) { f() } // the test driver runs fyne.Do inline
	w.SetContent(s.root)
	return s, w, rec, &opened
}

// googleRows is the text of the account rows' labels: address | status |
// scopes, added and reason.
func googleRows(s *googleScreen) string {
	var lines []string
	for _, o := range s.rows.Objects {
		var parts []string
		for _, x := range test.LaidOutObjects(o) {
			if l, ok := x.(*widget.Label); ok {
				parts = append(parts, l.Text)
			}
		}
		if len(parts) > 1 { // a Border: the detail (its centre) comes first
			parts = append(parts[1:], parts[0])
		}
		lines = append(lines, strings.Join(parts, " | "))
	}
	return strings.Join(lines, "\n")
}

// TestGoogleScreenNoClient: with no client, the tab says so, Add account
// is off, the console button opens the Credentials page, and the line on
// how to get the file is there.
func TestGoogleScreenNoClient(t *testing.T) {
	s, w, _, opened := googleTestScreen(t, &fakeGoogle{}, nil)
	if got := s.client.Text; got != "No OAuth client imported yet: import yours to add an account." {
		t.Errorf("client: %q", got)
	}
	if !s.add.Disabled() {
		t.Error("Add account is enabled without a client")
	}
	if got := googleRows(s); got != "No account yet." {
		t.Errorf("rows: %q", got)
	}
	root := w.Canvas().Content()
	test.Tap(button(t, root, "Open the Google Cloud console"))
	if !slices.Equal(*opened, []string{"https://console.cloud.google.com/apis/credentials"}) {
		t.Errorf("opened %v", *opened)
	}
	found := false
	for _, x := range test.LaidOutObjects(root) {
		if l, ok := x.(*widget.Label); ok && strings.Contains(l.Text,
			"Google Cloud console → APIs & Services → Credentials → Create credentials → OAuth client ID → Desktop app → Download JSON") {
			found = true
		}
	}
	if !found {
		t.Error("no line on how to get the client file")
	}
	// The file picker opens over the window.
	test.Tap(button(t, root, "Import client file…"))
	if w.Canvas().Overlays().Top() == nil {
		t.Error("Import client file… opened no dialog")
	}
}

// TestGoogleScreenImport: a bad file's error shows as the core words it
// and nothing changes; a good one names the client and enables Add.
func TestGoogleScreenImport(t *testing.T) {
	g := &fakeGoogle{importErr: errors.New(`client_secret_web.json: this is a "Web application" OAuth client, which cannot sign in on this computer's loopback address; mcptray needs a "Desktop app" client: …`)}
	s, _, _, _ := googleTestScreen(t, g, nil)
	s.importClient("/home/me/Downloads/client_secret_web.json")
	if !s.clientErr.Visible() || s.clientErr.Text != g.importErr.Error() {
		t.Errorf("bad file: visible %v %q", s.clientErr.Visible(), s.clientErr.Text)
	}
	if !s.add.Disabled() {
		t.Error("Add account enabled after a bad file")
	}
	g.importErr = nil
	s.importClient("/home/me/Downloads/client_secret_desktop.json")
	if s.clientErr.Visible() {
		t.Errorf("the old error still shows: %q", s.clientErr.Text)
	}
	if s.client.Text != "OAuth client 1234-abc.apps.googleusercontent.com (in the keyring)." || s.add.Disabled() {
		t.Errorf("after import: %q, add disabled %v", s.client.Text, s.add.Disabled())
	}
	if !slices.Equal(g.imported, []string{"/home/me/Downloads/client_secret_web.json", "/home/me/Downloads/client_secret_desktop.json"}) {
		t.Errorf("imported %v", g.imported)
	}
}

// TestGoogleScreenAccounts: the accounts with status, reason and scopes;
// Add account signs in for the ticked services; Sign in again only for the
// account that needs it; a failed sign-in says why; the browser's address
// can be copied when it did not open.
func TestGoogleScreenAccounts(t *testing.T) {
	g := twoGoogleAccounts()
	s, w, _, _ := googleTestScreen(t, g, nil)
	rows := googleRows(s)
	if len(s.rows.Objects) != 2 || !strings.HasPrefix(rows, "ada@example.com | ok | calendar, gmail · added 2026-06-01") ||
		!strings.Contains(rows, "\nbob@example.com | needs-sign-in | calendar · added 2026-06-20") ||
		!strings.HasSuffix(rows, "\nGoogle no longer accepts this sign-in (invalid_grant: Token has been expired or revoked)") {
		t.Errorf("rows:\n%s", rows)
	}
	root := w.Canvas().Content()
	if again := buttons(root, "Sign in again"); len(again) != 1 {
		t.Fatalf("%d Sign in again buttons, want 1 (bob's)", len(again))
	}

	// Sign in again: bob's services, his address preselected.
	g.signIn = "bob@example.com"
	test.Tap(button(t, root, "Sign in again"))
	if g.added[0] != "bob@example.com " {
		t.Errorf("sign in again: %q", g.added)
	}
	if !strings.Contains(googleRows(s), "bob@example.com | ok") || len(buttons(w.Canvas().Content(), "Sign in again")) != 0 {
		t.Errorf("after signing bob in again:\n%s", googleRows(s))
	}

	// Add account, Calendar only.
	g.signIn = "cy@example.com"
	s.gmail.SetChecked(false)
	test.Tap(s.add)
	if g.added[1] != " calendar" || !strings.Contains(s.result.Text, "Signed in cy@example.com (calendar).") {
		t.Errorf("add: %q %q", g.added, s.result.Text)
	}
	if !strings.Contains(googleRows(s), "cy@example.com | ok | calendar") || s.progress.Visible() || s.add.Disabled() {
		t.Errorf("after add:\n%s", googleRows(s))
	}

	// Nothing ticked: no sign-in.
	s.calendar.SetChecked(false)
	test.Tap(s.add)
	if len(g.added) != 2 || s.result.Text != "Tick Calendar, Gmail or both first." {
		t.Errorf("nothing ticked: %q %q", g.added, s.result.Text)
	}

	// A failed sign-in, with no browser: the error is said.
	s.calendar.SetChecked(true)
	g.signIn, g.browser = "", errors.New(`starting xdg-open: exec: "xdg-open": executable file not found in $PATH`)
	test.Tap(s.add)
	if s.result.Text != "The sign-in did not finish: the sign-in was cancelled on Google's page (access_denied)" {
		t.Errorf("failed sign-in: %q", s.result.Text)
	}
	if s.signURL != "https://accounts.example.com/o/oauth2/auth?client_id=x" {
		t.Errorf("sign-in address %q", s.signURL)
	}
}

// TestGoogleScreenBrowserFails: while a sign-in waits, the tab says the
// browser did not open, Add account is off, and Copy address copies the
// consent page's address.
func TestGoogleScreenBrowserFails(t *testing.T) {
	g := twoGoogleAccounts()
	g.browser = errors.New(`starting xdg-open: exec: "xdg-open": executable file not found in $PATH`)
	g.signIn = "cy@example.com"
	s, w, _, _ := googleTestScreen(t, g, nil)
	checked := false
	g.waiting = func() {
		checked = true
		if !s.progress.Visible() || !s.add.Disabled() {
			t.Error("no progress shown while signing in, or Add account still on")
		}
		if want := `Could not open a browser (starting xdg-open: exec: "xdg-open": executable file not found in $PATH).`; !strings.HasPrefix(s.signText.Text, want) {
			t.Errorf("while waiting: %q", s.signText.Text)
		}
		test.Tap(button(t, w.Canvas().Content(), "Copy address"))
		if got := fyne.CurrentApp().Clipboard().Content(); got != "https://accounts.example.com/o/oauth2/auth?client_id=x" {
			t.Errorf("copied %q", got)
		}
	}
	test.Tap(s.add)
	if !checked {
		t.Fatal("the sign-in did not wait")
	}
	if s.progress.Visible() || !strings.Contains(s.result.Text, "Signed in cy@example.com") {
		t.Errorf("after: %q", s.result.Text)
	}
}

// TestGoogleScreenNoKeyring: a keyring that cannot be read is said, and
// no sign-in can start.
func TestGoogleScreenNoKeyring(t *testing.T) {
	g := twoGoogleAccounts()
	g.clientErr = errors.New("reading the Google OAuth client from the keyring: no Secret Service on the session bus (is gnome-keyring or KWallet running?)")
	s, w, _, _ := googleTestScreen(t, g, nil)
	if s.client.Text != "Cannot read the OAuth client: "+g.clientErr.Error() || !s.add.Disabled() {
		t.Errorf("client %q, add disabled %v", s.client.Text, s.add.Disabled())
	}
	if again := buttons(w.Canvas().Content(), "Sign in again"); len(again) != 1 || !again[0].Disabled() {
		t.Error("Sign in again is not there, or enabled, without a readable client")
	}
}

// TestGoogleScreenCancel: Cancel stops a sign-in that waits for the
// browser, and says so.
func TestGoogleScreenCancel(t *testing.T) {
	g := twoGoogleAccounts()
	g.signIn = "cy@example.com"
	s, w, _, _ := googleTestScreen(t, g, nil)
	g.waiting = func() { test.Tap(button(t, w.Canvas().Content(), "Cancel")) }
	test.Tap(s.add)
	if want := "The sign-in did not finish: the Google sign-in was stopped before it finished: context canceled"; s.result.Text != want {
		t.Errorf("cancelled: %q", s.result.Text)
	}
	if len(g.accounts) != 2 || s.progress.Visible() || s.add.Disabled() {
		t.Errorf("after cancel: %d accounts, progress %v, add disabled %v", len(g.accounts), s.progress.Visible(), s.add.Disabled())
	}
}

// TestGoogleScreenRemove: Remove asks first; No keeps the account, Yes
// removes it; a failed revocation is said, the account gone all the same.
func TestGoogleScreenRemove(t *testing.T) {
	g := twoGoogleAccounts()
	s, w, rec, _ := googleTestScreen(t, g, nil)
	test.Tap(buttons(w.Canvas().Content(), "Remove")[0])
	confirm := w.Canvas().Overlays().Top()
	if confirm == nil {
		t.Fatal("Remove asked nothing")
	}
	if !labelled(confirm, "mcptray revokes its sign-in at Google and forgets it") {
		t.Error("the confirm does not say what Remove does")
	}
	test.Tap(button(t, confirm, "No"))
	if len(g.removed) != 0 || len(g.accounts) != 2 {
		t.Fatalf("No removed %v", g.removed)
	}
	test.Tap(buttons(w.Canvas().Content(), "Remove")[0])
	test.Tap(button(t, w.Canvas().Overlays().Top(), "Yes"))
	if !slices.Equal(g.removed, []string{"ada@example.com"}) || s.result.Text != "Removed ada@example.com (its sign-in was revoked at Google)." {
		t.Errorf("removed %v: %q", g.removed, s.result.Text)
	}
	g.revokeErr = "could not reach https://oauth2.googleapis.com/revoke: connection refused"
	s.remove("bob@example.com")
	if want := "Removed bob@example.com, but its sign-in could not be revoked at Google (could not reach https://oauth2.googleapis.com/revoke: connection refused). " +
		"To revoke it yourself, remove mcptray at https://myaccount.google.com/connections."; s.result.Text != want {
		t.Errorf("revocation failed: %q", s.result.Text)
	}
	if got := googleRows(s); got != "No account yet." {
		t.Errorf("rows: %q", got)
	}
	s.remove("zed@example.com")
	if len(rec.errors) != 1 || rec.errors[0] != "removing zed@example.com: no Google account zed@example.com (mcptray auth google list shows them)" {
		t.Errorf("errors: %q", rec.errors)
	}
}

// labelled says whether a label under o contains text.
func labelled(o fyne.CanvasObject, text string) bool {
	for _, x := range test.LaidOutObjects(o) {
		if l, ok := x.(*widget.Label); ok && strings.Contains(l.Text, text) {
			return true
		}
	}
	return false
}

// TestGoogleOpenOnToggle: turning gmail on (tray or Servers tab) with no
// account opens the window on the Google tab and leaves gmail off; once
// an account is added there, gmail is turned on. Other servers, and
// turning off, go straight to the core; with an account, so does gmail.
func TestGoogleOpenOnToggle(t *testing.T) {
	var set []string
	g := &fakeGoogle{clientID: "1234-abc.apps.googleusercontent.com", signIn: "ada@example.com"}
	c := &fakeCore{fakeGoogle: g, setEnabled: func(name string, on bool) error {
		set = append(set, name+" "+map[bool]string{true: "on", false: "off"}[on])
		return nil
	}}
	d, host := testDesktop(t, c)
	item(t, host.last(), "gmail").Action()
	if len(set) != 0 {
		t.Fatalf("gmail was turned on with no account: %v", set)
	}
	m := d.main
	if m == nil || !d.visible || m.tabs.Selected().Text != tabGoogle {
		t.Fatal("the window did not open on the Google tab")
	}
	if !m.google.pending.Visible() || m.google.pending.Text != "gmail needs a Google account: add one here, and gmail is turned on." {
		t.Errorf("pending: %q", m.google.pending.Text)
	}
	m.google.background = func(f func()) { f() }
	test.Tap(m.google.add)
	if !slices.Equal(set, []string{"gmail on"}) || !strings.Contains(m.google.result.Text, "gmail is turned on.") || m.google.pending.Visible() {
		t.Errorf("after adding an account: %v %q", set, m.google.result.Text)
	}

	// Now there is an account: straight to the core. Others always were.
	m.servers.setEnabled("gcal", true)
	m.servers.setEnabled("notes", true)
	item(t, host.last(), "gmail").Action()
	if !slices.Equal(set, []string{"gmail on", "gcal on", "notes on", "gmail on"}) {
		t.Errorf("set %v", set)
	}

	// With no account again, the Servers tab's check opens the tab too.
	g.accounts = nil
	m.show(tabServers)
	m.servers.setEnabled("gcal", true)
	m.servers.setEnabled("gcal", false)
	if m.tabs.Selected().Text != tabGoogle || m.google.waiting != "gcal" || !slices.Equal(set[4:], []string{"gcal off"}) {
		t.Errorf("Servers tab: %s %q %v", m.tabs.Selected().Text, m.google.waiting, set)
	}

	// An account added elsewhere (mcptray auth google add): gcal is turned
	// on when the tab next reads the accounts.
	g.accounts = twoGoogleAccounts().accounts
	m.show(tabServers)
	m.show(tabGoogle)
	if !slices.Equal(set[4:], []string{"gcal off", "gcal on"}) || m.google.waiting != "" || !strings.HasSuffix(m.google.result.Text, "gcal is turned on.") {
		t.Errorf("account added elsewhere: %v %q", set, m.google.result.Text)
	}
}

// TestGoldenGoogle: the Google tab with a client and two accounts, one
// needing to sign in again.
func TestGoldenGoogle(t *testing.T) {
	failOnThreadErrors(t)
	a := test.NewTempApp(t)
	env, _ := testEnv(t, a, &fakeCore{fakeGoogle: twoGoogleAccounts()})
	env.autostart = &fixedAutostart{on: true}
	m := newMainScreen(env, "")
	t.Cleanup(m.close)
	m.apply(twoServers())
	w := test.NewTempWindow(t, m.root)
	w.Resize(fyne.NewSize(900, 560))
	m.show(tabGoogle)
	assertMarkup(t, "google.xml", w.Canvas())
}
