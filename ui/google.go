package ui

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/googleaccounts"
)

// GoogleCore is what the Google tab needs from the core (part of Core):
// the Google accounts of `mcptray auth google`, the same keyring entries
// and accounts file.
type GoogleCore interface {
	// GoogleClient is the imported OAuth client's id, "" for none.
	GoogleClient() (string, error)
	// GoogleAccounts lists the accounts, first added first.
	GoogleAccounts() ([]googleaccounts.Account, error)
	// ImportGoogleClient imports a "Desktop app" client file and returns
	// its id; a bad file's error says what it is and what to download.
	ImportGoogleClient(path string) (string, error)
	// AddGoogleAccount signs an account in in the browser (email: one
	// signing in again), calling opened with the consent page's address;
	// it returns when the sign-in is done, failed or ctx ends.
	AddGoogleAccount(ctx context.Context, services []string, email string, opened func(url string, browserErr error)) (googleaccounts.Added, error)
	// RemoveGoogleAccount revokes an account's sign-in and forgets it.
	RemoveGoogleAccount(ctx context.Context, email string) (googleaccounts.Removed, error)
}

// googleConsoleURL is the Google Cloud console's Credentials page, where a
// Desktop app client is made.
const googleConsoleURL = "https://console.cloud.google.com/apis/credentials"

// googleServers are the servers that need a Google account: turning one
// on with no account opens the Google tab (see googleGate).
var googleServers = map[string]bool{"gcal": true, "gmail": true}

// googleScreen is the Google tab: the OAuth client (import its file, open
// the console), the accounts (status, scopes, Sign in again, Remove) and
// Add account. A sign-in runs off the main goroutine and comes back
// through onMain. Main goroutine only.
type googleScreen struct {
	core    Core
	onError func(error)
	win     func() fyne.Window
	openURL func(*url.URL) // opens a page in the browser

	client    *widget.Label // which client is imported
	clientErr *widget.Label // why the last import failed
	pending   *widget.Label // the server waiting for an account
	rows      *fyne.Container
	calendar  *widget.Check
	gmail     *widget.Check
	add       *widget.Button
	progress  *fyne.Container // the sign-in under way: its text, Copy address, Cancel
	signText  *widget.Label
	copyURL   *widget.Button
	result    *widget.Label // how the last sign-in or removal went
	root      fyne.CanvasObject
	clipboard fyne.Clipboard

	// waiting is the server (gcal, gmail) turned on with no account: it is
	// turned on once an account is added. "" for none.
	waiting string
	signURL string             // the sign-in's address, for Copy
	cancel  context.CancelFunc // ends the sign-in under way; nil when none

	background func(func()) // runs a sign-in off the main goroutine; tests run it inline
}

func newGoogleScreen(env screenEnv) *googleScreen {
	s := &googleScreen{core: env.core, onError: env.onError, win: env.window, openURL: env.openURL, clipboard: env.clipboard,
		client: widget.NewLabel(""), clientErr: widget.NewLabel(""), pending: widget.NewLabel(""),
		rows: container.NewVBox(), result: widget.NewLabel(""), signText: widget.NewLabel(""),
		background: func(f func()) { go f() }}
	for _, l := range []*widget.Label{s.client, s.clientErr, s.pending, s.result, s.signText} {
		l.Wrapping = fyne.TextWrapWord
	}
	s.clientErr.Importance = widget.DangerImportance
	s.pending.Importance = widget.WarningImportance
	how := widget.NewLabel("Your own \"Desktop app\" OAuth client: Google Cloud console → APIs & Services → Credentials → " +
		"Create credentials → OAuth client ID → Desktop app → Download JSON. Its id and secret go into the OS keyring.")
	how.Wrapping = fyne.TextWrapWord
	console := widget.NewButtonWithIcon("Open the Google Cloud console", theme.ComputerIcon(), s.openConsole)
	importBtn := widget.NewButtonWithIcon("Import client file…", theme.FolderOpenIcon(), s.pickClientFile)

	s.calendar = widget.NewCheck("Calendar", nil)
	s.gmail = widget.NewCheck("Gmail", nil)
	s.calendar.SetChecked(true)
	s.gmail.SetChecked(true)
	s.add = widget.NewButtonWithIcon("Add account…", theme.ContentAddIcon(), func() { s.signIn("") })
	s.copyURL = widget.NewButtonWithIcon("Copy address", theme.ContentCopyIcon(), func() {
		if s.clipboard != nil {
			s.clipboard.SetContent(s.signURL)
		}
	})
	cancel := widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() {
		if s.cancel != nil {
			s.cancel()
		}
	})
	s.progress = container.NewVBox(s.signText, container.NewHBox(s.copyURL, cancel))
	s.progress.Hide()

	clientBox := container.NewVBox(widget.NewLabelWithStyle("OAuth client", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		s.client, how, container.NewHBox(importBtn, console), s.clientErr)
	accounts := container.NewVBox(widget.NewLabelWithStyle("Accounts", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		s.pending, s.rows, container.NewHBox(s.add, widget.NewLabel("for"), s.calendar, s.gmail), s.progress, s.result)
	s.root = container.NewVScroll(container.NewVBox(clientBox, widget.NewSeparator(), accounts))
	s.refresh()
	return s
}

// refresh reads the client and the accounts again.
func (s *googleScreen) refresh() {
	id, err := s.core.GoogleClient()
	hasClient := err == nil && id != ""
	switch {
	case err != nil:
		s.client.SetText("Cannot read the OAuth client: " + err.Error())
		s.client.Importance = widget.DangerImportance
	case id == "":
		s.client.SetText("No OAuth client imported yet: import yours to add an account.")
		s.client.Importance = widget.WarningImportance
	default:
		s.client.SetText("OAuth client " + id + " (in the keyring).")
		s.client.Importance = widget.MediumImportance
	}
	s.client.Refresh()
	if s.clientErr.Text == "" {
		s.clientErr.Hide()
	} else {
		s.clientErr.Show()
	}
	if s.waiting != "" {
		s.pending.SetText(s.waiting + " needs a Google account: add one here, and " + s.waiting + " is turned on.")
		s.pending.Show()
	} else {
		s.pending.Hide()
	}

	s.rows.RemoveAll()
	list, err := s.core.GoogleAccounts()
	switch {
	case err != nil:
		l := widget.NewLabel("Cannot read the accounts: " + err.Error())
		l.Wrapping = fyne.TextWrapWord
		l.Importance = widget.DangerImportance
		s.rows.Add(l)
	case len(list) == 0:
		s.rows.Add(widget.NewLabel("No account yet."))
	}
	for _, a := range list {
		s.rows.Add(s.accountRow(a, hasClient))
	}
	if len(list) > 0 {
		s.turnOnWaiting()
	}
	if hasClient && s.cancel == nil {
		s.add.Enable()
	} else {
		s.add.Disable()
	}
}

// turnOnWaiting turns on the server waiting for an account (there is one
// now: added here, or by `mcptray auth google add`).
func (s *googleScreen) turnOnWaiting() {
	name := s.waiting
	if name == "" {
		return
	}
	s.waiting = ""
	s.pending.Hide()
	if err := s.core.SetEnabled(name, true); err != nil {
		s.onError(fmt.Errorf("turning %s on: %w", name, err))
		return
	}
	text := name + " is turned on."
	if s.result.Text != "" {
		text = s.result.Text + "\n" + text
	}
	s.result.SetText(text)
}

// accountRow is one account: address, status (with its reason), scopes
// and when it was added, with Sign in again (when it needs to) and Remove.
func (s *googleScreen) accountRow(a googleaccounts.Account, hasClient bool) fyne.CanvasObject {
	email := a.Email
	title := widget.NewLabelWithStyle(email, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	scopes := "no service"
	if len(a.Scopes) > 0 {
		scopes = strings.Join(a.Scopes, ", ")
	}
	status := widget.NewLabel(a.Status)
	status.Importance = widget.SuccessImportance
	line := scopes + " · added " + a.Added.Local().Format("2006-01-02 15:04")
	buttons := container.NewHBox()
	if a.Status == googleaccounts.StatusNeedsSignIn {
		status.Importance = widget.WarningImportance
		if a.Reason != "" {
			line += "\n" + a.Reason
		}
		again := widget.NewButtonWithIcon("Sign in again", theme.LoginIcon(), func() { s.signIn(email) })
		if !hasClient || s.cancel != nil {
			again.Disable()
		}
		buttons.Add(again)
	}
	buttons.Add(widget.NewButtonWithIcon("Remove", theme.DeleteIcon(), func() { s.confirmRemove(email) }))
	detail := widget.NewLabel(line)
	detail.Wrapping = fyne.TextWrapWord
	// The buttons at the top, not stretched to a long reason's height.
	return container.NewBorder(nil, nil, container.NewHBox(title, status), container.NewVBox(buttons), detail)
}

// openConsole opens the console's Credentials page in the browser.
func (s *googleScreen) openConsole() {
	u, _ := url.Parse(googleConsoleURL)
	if s.openURL != nil {
		s.openURL(u)
	}
}

// pickClientFile asks for the client file with Fyne's file dialog.
func (s *googleScreen) pickClientFile() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil {
			s.onError(err)
			return
		}
		if r == nil {
			return // cancelled
		}
		r.Close()
		s.importClient(r.URI().Path())
	}, s.win())
	d.SetFilter(storage.NewExtensionFileFilter([]string{".json"}))
	d.Resize(fyne.NewSize(720, 480))
	d.Show()
}

// importClient imports the client file at path; a bad file's error shows
// under the button, as package google words it.
func (s *googleScreen) importClient(path string) {
	id, err := s.core.ImportGoogleClient(path)
	if err != nil {
		s.clientErr.SetText(err.Error())
	} else {
		s.clientErr.SetText("")
		s.result.SetText("Imported the OAuth client " + id + ". Next: Add account.")
	}
	s.refresh()
}

// services are the services ticked for a new account.
func (s *googleScreen) services() []string {
	var out []string
	if s.calendar.Checked {
		out = append(out, "calendar")
	}
	if s.gmail.Checked {
		out = append(out, "gmail")
	}
	return out
}

// signIn runs a sign-in (email: an account signing in again) off the main
// goroutine, showing its address while it waits.
func (s *googleScreen) signIn(email string) {
	if s.cancel != nil {
		return
	}
	var services []string
	if email == "" {
		services = s.services()
		if len(services) == 0 {
			s.result.SetText("Tick Calendar, Gmail or both first.")
			return
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.signURL = ""
	s.signText.SetText("Opening Google's sign-in page in your browser…")
	s.copyURL.Disable()
	s.progress.Show()
	s.result.SetText("")
	s.refresh()
	opened := func(u string, berr error) {
		onMain(func() {
			s.signURL = u
			s.copyURL.Enable()
			if berr != nil {
				s.signText.SetText(fmt.Sprintf("Could not open a browser (%v). Open the address (Copy address) in a browser on this computer to sign in; waiting 5 minutes at most.", berr))
			} else {
				s.signText.SetText("Your browser shows Google's sign-in page: finish there (waiting 5 minutes at most). If it did not open, copy the address into a browser.")
			}
		})
	}
	s.background(func() {
		added, err := s.core.AddGoogleAccount(ctx, services, email, opened)
		onMain(func() { s.signedIn(added, err) })
	})
}

// signedIn shows how a sign-in went; a server waiting for an account is
// turned on.
func (s *googleScreen) signedIn(added googleaccounts.Added, err error) {
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
	s.progress.Hide()
	if err != nil {
		s.result.SetText("The sign-in did not finish: " + err.Error())
		s.result.Importance = widget.DangerImportance
		s.result.Refresh()
		s.refresh()
		return
	}
	text := fmt.Sprintf("Signed in %s (%s).", added.Account.Email, strings.Join(added.Account.Scopes, ", "))
	for _, w := range added.Warnings {
		text += "\nNote: " + w + "."
	}
	s.result.SetText(text)
	s.result.Importance = widget.MediumImportance
	s.result.Refresh()
	s.refresh()
}

// confirmRemove asks before removing an account.
func (s *googleScreen) confirmRemove(email string) {
	dialog.ShowConfirm("Remove "+email+"?",
		"mcptray revokes its sign-in at Google and forgets it: gcal and gmail can no longer use it.",
		func(ok bool) {
			if ok {
				s.remove(email)
			}
		}, s.win())
}

// remove removes an account, saying when its sign-in could not be revoked.
func (s *googleScreen) remove(email string) {
	res, err := s.core.RemoveGoogleAccount(context.Background(), email)
	switch {
	case err != nil:
		s.onError(fmt.Errorf("removing %s: %w", email, err))
	case res.RevokeError != "":
		s.result.SetText(fmt.Sprintf("Removed %s, but its sign-in could not be revoked at Google (%s). "+
			"To revoke it yourself, remove mcptray at https://myaccount.google.com/connections.", res.Email, res.RevokeError))
		s.result.Importance = widget.WarningImportance
		s.result.Refresh()
	default:
		s.result.SetText("Removed " + res.Email + " (its sign-in was revoked at Google).")
		s.result.Importance = widget.MediumImportance
		s.result.Refresh()
	}
	s.refresh()
}

// needAccount remembers server name, turned on with no account: it is
// turned on once an account is added.
func (s *googleScreen) needAccount(name string) {
	s.waiting = name
	s.refresh()
}

// googleGate is the Core the tray and the Servers tab turn servers on
// through: turning gcal or gmail on while no Google account exists opens
// the Google tab instead (the server is turned on once an account is
// added there). Everything else is the core's.
type googleGate struct {
	Core
	open func(server string) // shows the Google tab, waiting for server
}

// SetEnabled turns name on or off, unless it is a Google server turned on
// with no account.
func (g googleGate) SetEnabled(name string, on bool) error {
	if on && googleServers[name] {
		if list, err := g.Core.GoogleAccounts(); err == nil && len(list) == 0 {
			g.open(name)
			return nil
		}
	}
	return g.Core.SetEnabled(name, on)
}
