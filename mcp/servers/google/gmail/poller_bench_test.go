package gmail

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/servers/google"
	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
)

// BenchmarkPollNoNewMail: a poll of two Gmail accounts (and one signed in
// for Calendar only) with 50 old messages each and no new mail. It
// reports the Gmail requests and the history.list requests per account
// per poll (the target is 1 and 1).
func BenchmarkPollNoNewMail(b *testing.B) {
	fake := googletest.New()
	defer fake.Close()
	b.Setenv(google.APIURLEnv, fake.URL)
	both := []string{google.ServiceCalendar, google.ServiceGmail}
	acc := &pollAccounts{fake: fake, needSignIn: map[string]bool{}, tokens: map[string]string{}, list: []google.Account{
		{Email: adaMail, Scopes: both, Status: google.StatusOK},
		{Email: bobMail, Scopes: both, Status: google.StatusOK},
		{Email: calOnly, Scopes: []string{google.ServiceCalendar}, Status: google.StatusOK},
	}}
	for _, email := range []string{adaMail, bobMail} {
		for i := range 50 {
			raw := fmt.Sprintf("From: someone@example.com\r\nTo: %s\r\nSubject: Old %d\r\n\r\nHello\r\n", email, i)
			if _, err := fake.DeliverMessage(email, []byte(raw)); err != nil {
				b.Fatal(err)
			}
		}
	}
	p, err := NewPoller(PollerOptions{Accounts: acc, DataDir: b.TempDir(), Notify: func(string, any) error { return nil },
		Logger: slog.New(slog.DiscardHandler), Backoff: google.Backoff{Attempts: 1, Base: time.Millisecond, Max: time.Millisecond}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	p.PollOnce(ctx)
	reqs, lists := len(fake.RecordedGmailRequests()), fake.GmailRequests(historyListRoute)
	b.ResetTimer()
	for b.Loop() {
		p.PollOnce(ctx)
	}
	b.StopTimer()
	const accounts = 2
	b.ReportMetric(float64(len(fake.RecordedGmailRequests())-reqs)/float64(b.N)/accounts, "requests/account/poll")
	b.ReportMetric(float64(fake.GmailRequests(historyListRoute)-lists)/float64(b.N)/accounts, "history.list/account/poll")
}
