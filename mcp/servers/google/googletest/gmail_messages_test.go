package googletest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/api/gmail/v1"
)

// dated is a message with a Date header d ago.
func dated(from, to, subject, body string, ago time.Duration, extra ...string) []byte {
	return rawMail(from, to, subject, body, append(extra, "Date: "+time.Now().Add(-ago).Format(time.RFC1123Z))...)
}

func TestGmailSearch(t *testing.T) {
	s := newTestServer(t)
	svc := gmailService(t, s, ada)
	imp := func(raw []byte, labels ...string) string {
		m, err := svc.Users.Messages.Import("me", &gmail.Message{Raw: b64(raw), LabelIds: labels}).Do()
		must(t, err)
		return m.Id
	}
	day := 24 * time.Hour
	invoice := imp(dated("Billing <billing@shop.example>", ada, "Your invoice 42", "Total: 12 EUR. Meeting notes attached.", 2*day), "INBOX", "UNREAD")
	lunch := imp(dated("Bob <bob@example.org>", "ada@example.com, carol@example.com", "Lunch?", "Meet at noon in the canteen", 40*day), "INBOX", "STARRED")
	report := imp(dated(ada, "Bob <bob@example.org>", "Quarterly report", "see the attached report", 400*day,
		"Content-Disposition: inline", "Cc: dan@example.com"), "SENT")
	spam := imp(dated("win@lottery.example", ada, "You won", "claim the meeting prize", time.Hour), "SPAM")
	trashed := imp(dated(bob, ada, "Old lunch", "meeting", 3*day), "TRASH")
	work := s.AddGmailLabel(ada, "Work Projects")
	must(t, s.ChangeLabels(ada, lunch, []string{work}, nil))
	withFile := deliver(t, s, ada, []byte(multipartMail))

	for q, want := range map[string][]string{
		"":                          {withFile, invoice, lunch, report},
		"from:billing@shop.example": {invoice},
		"from:bob":                  {lunch},
		"to:carol@example.com":      {lunch},
		"to:dan":                    {report},
		"cc:dan@example.com":        {report},
		"subject:invoice":           {invoice},
		"subject:(invoice)":         {invoice},
		"subject:(42 invoice)":      {invoice},
		`subject:"42 invoice"`:      nil,
		"from:(bob example)":        {lunch},
		"is:unread":                 {withFile, invoice},
		"is:read":                   {lunch, report},
		"is:starred":                {lunch},
		"in:inbox":                  {withFile, invoice, lunch},
		"in:sent":                   {report},
		"label:work-projects":       {lunch},
		`label:"Work Projects"`:     {lunch},
		"label:inbox -is:unread":    {lunch},
		"has:attachment":            {withFile},
		"filename:pdf":              {withFile},
		"has:userlabels":            {lunch},
		"newer_than:7d":             {withFile, invoice},
		"older_than:1y":             {report},
		"after:" + time.Now().Add(-10*day).Format("2006/01/02"): {withFile, invoice},
		"before:" + fmt.Sprint(time.Now().Add(-30*day).Unix()):  {lunch, report},
		"meeting":                      {withFile, invoice},
		"meet":                         {lunch},
		`"at noon"`:                    {lunch},
		`"noon at"`:                    nil,
		"invoice OR lunch":             {invoice, lunch},
		"rfc822msgid:<m1@example.net>": {withFile},
		"in:trash":                     {trashed},
		"in:spam meeting":              {spam},
		"in:anywhere meeting":          {withFile, spam, invoice, trashed},
		"canteen -from:bob":            nil,
		"bob@example.org":              {lunch, report},
		"larger:600":                   {withFile},
		"smaller:600 has:attachment":   nil,
		"smaller:1K has:attachment":    {withFile},
		"category:primary":             nil,
	} {
		list, err := svc.Users.Messages.List("me").Q(q).Do()
		if err != nil {
			t.Errorf("q=%q: %v", q, err)
			continue
		}
		if got := ids(list.Messages); !slices.Equal(got, want) || list.ResultSizeEstimate != int64(len(want)) {
			t.Errorf("q=%q: %v (estimate %d), want %v", q, got, list.ResultSizeEstimate, want)
		}
	}
	list, err := svc.Users.Messages.List("me").IncludeSpamTrash(true).Do()
	if err != nil || len(list.Messages) != 6 {
		t.Errorf("includeSpamTrash: %v, %v", ids(list.Messages), err)
	}
	list, err = svc.Users.Messages.List("me").LabelIds("INBOX", "UNREAD").Do()
	if err != nil || !slices.Equal(ids(list.Messages), []string{withFile, invoice}) {
		t.Errorf("labelIds: %v, %v", ids(list.Messages), err)
	}
	list, err = svc.Users.Messages.List("me").LabelIds("TRASH").Do()
	if err != nil || !slices.Equal(ids(list.Messages), []string{trashed}) {
		t.Errorf("labelIds=TRASH: %v, %v", ids(list.Messages), err)
	}
	_, err = svc.Users.Messages.List("me").Q("after:yesterday").Do()
	wantAPIError(t, err, 400, "Invalid date")
}

func TestGmailPaging(t *testing.T) {
	s := newTestServer(t)
	svc := gmailService(t, s, ada)
	var want []string
	for i := range 7 {
		want = append([]string{deliver(t, s, ada, rawMail(bob, ada, fmt.Sprint("m", i), "x"))}, want...)
	}
	var got []string
	pages := 0
	err := svc.Users.Messages.List("me").MaxResults(3).Pages(context.Background(), func(l *gmail.ListMessagesResponse) error {
		pages++
		got = append(got, ids(l.Messages)...)
		if l.ResultSizeEstimate != 7 {
			t.Errorf("estimate %d", l.ResultSizeEstimate)
		}
		return nil
	})
	if err != nil || pages != 3 || !slices.Equal(got, want) {
		t.Errorf("%d pages %v, want %v: %v", pages, got, want, err)
	}
	_, err = svc.Users.Messages.List("me").PageToken("nope").Do()
	wantAPIError(t, err, 400, "Invalid pageToken")
	empty, err := svc.Users.Messages.List("me").Q("nothing-matches-this").Do()
	if err != nil || empty.Messages != nil || empty.ResultSizeEstimate != 0 || empty.NextPageToken != "" {
		t.Errorf("empty list %+v, %v", empty, err)
	}
	threads, err := svc.Users.Threads.List("me").MaxResults(5).Do()
	if err != nil || len(threads.Threads) != 5 || threads.NextPageToken == "" || threads.ResultSizeEstimate != 7 {
		t.Errorf("threads page %+v, %v", threads, err)
	}
}

func TestGmailInsertAndImport(t *testing.T) {
	s := newTestServer(t)
	svc := gmailService(t, s, ada)
	old := dated(bob, ada, "archived", "from 2019", time.Since(time.Date(2019, 5, 1, 12, 0, 0, 0, time.UTC)))
	m, err := svc.Users.Messages.Insert("me", &gmail.Message{Raw: b64(old), LabelIds: []string{"INBOX"}}).Do()
	must(t, err)
	got, _ := svc.Users.Messages.Get("me", m.Id).Format("minimal").Do()
	if time.Since(time.UnixMilli(got.InternalDate)) > time.Minute || !slices.Equal(got.LabelIds, []string{"INBOX"}) {
		t.Errorf("insert dated %v, labels %v", time.UnixMilli(got.InternalDate), got.LabelIds)
	}
	m, err = svc.Users.Messages.Insert("me", &gmail.Message{Raw: b64(old)}).InternalDateSource("dateHeader").Do()
	must(t, err)
	got, _ = svc.Users.Messages.Get("me", m.Id).Format("minimal").Do()
	if time.UnixMilli(got.InternalDate).Year() != 2019 || len(got.LabelIds) != 0 {
		t.Errorf("insert by date header: %v, %v", time.UnixMilli(got.InternalDate), got.LabelIds)
	}
	m, err = svc.Users.Messages.Import("me", &gmail.Message{Raw: b64(old), LabelIds: []string{"SENT"}}).Do()
	must(t, err)
	got, _ = svc.Users.Messages.Get("me", m.Id).Format("minimal").Do()
	if time.UnixMilli(got.InternalDate).Year() != 2019 {
		t.Errorf("import dated %v", time.UnixMilli(got.InternalDate))
	}
	_, err = svc.Users.Messages.Insert("me", &gmail.Message{Raw: b64(old), LabelIds: []string{"Label_404"}}).Do()
	wantAPIError(t, err, 400, "Invalid label: Label_404")
	_, err = svc.Users.Messages.Insert("me", &gmail.Message{}).Do()
	wantAPIError(t, err, 400, "'raw' RFC822 payload message string or uploading message via /upload/* URL required")
	_, err = svc.Users.Messages.Insert("me", &gmail.Message{Raw: "not+base64/url"}).Do()
	wantAPIError(t, err, 400, "Invalid value for ByteString")
	_, err = svc.Users.Messages.Import("me", &gmail.Message{Raw: b64(old)}).InternalDateSource("later").Do()
	wantAPIError(t, err, 400, "internal_date_source")
}

func TestGmailModifyTrashAndBatches(t *testing.T) {
	s := newTestServer(t)
	svc := gmailService(t, s, ada)
	id := deliver(t, s, ada, rawMail(bob, ada, "hi", "x"))
	work := s.AddGmailLabel(ada, "Work")
	m, err := svc.Users.Messages.Modify("me", id, &gmail.ModifyMessageRequest{AddLabelIds: []string{"STARRED", work},
		RemoveLabelIds: []string{"UNREAD"}}).Do()
	if err != nil || !slices.Equal(m.LabelIds, []string{"INBOX", "STARRED", work}) || m.ThreadId != id {
		t.Errorf("modified %+v, %v", m, err)
	}
	for _, c := range []struct {
		req  *gmail.ModifyMessageRequest
		want string
	}{
		{&gmail.ModifyMessageRequest{}, "No label add or removes specified"},
		{&gmail.ModifyMessageRequest{AddLabelIds: []string{"Label_99"}}, "Invalid label: Label_99"},
		{&gmail.ModifyMessageRequest{RemoveLabelIds: []string{"SENT"}}, "Invalid label: SENT"},
		{&gmail.ModifyMessageRequest{AddLabelIds: []string{"DRAFT"}}, "Invalid label: DRAFT"},
	} {
		_, err := svc.Users.Messages.Modify("me", id, c.req).Do()
		wantAPIError(t, err, 400, c.want)
	}
	_, err = svc.Users.Messages.Modify("me", "0000000000000001", &gmail.ModifyMessageRequest{AddLabelIds: []string{"STARRED"}}).Do()
	wantAPIError(t, err, 404, "not found")

	m, err = svc.Users.Messages.Trash("me", id).Do()
	if err != nil || !slices.Contains(m.LabelIds, "TRASH") || slices.Contains(m.LabelIds, "INBOX") {
		t.Errorf("trashed %+v, %v", m, err)
	}
	if l, _ := svc.Users.Messages.List("me").Do(); len(l.Messages) != 0 {
		t.Errorf("a trashed message listed")
	}
	m, err = svc.Users.Messages.Untrash("me", id).Do()
	if err != nil || slices.Contains(m.LabelIds, "TRASH") || slices.Contains(m.LabelIds, "INBOX") {
		t.Errorf("untrashed %+v, %v", m, err)
	}

	var many []string
	for i := range 1000 {
		many = append(many, deliver(t, s, ada, rawMail(bob, ada, fmt.Sprint("bulk ", i), "x")))
	}
	must(t, svc.Users.Messages.BatchModify("me", &gmail.BatchModifyMessagesRequest{Ids: append(many[:999:999], "0000000000000001"),
		RemoveLabelIds: []string{"UNREAD"}}).Do())
	if l, _ := svc.Users.Messages.List("me").Q("is:unread").Do(); l.ResultSizeEstimate != 1 {
		t.Errorf("%d unread after batchModify", l.ResultSizeEstimate)
	}
	err = svc.Users.Messages.BatchModify("me", &gmail.BatchModifyMessagesRequest{Ids: append(many, id), AddLabelIds: []string{"STARRED"}}).Do()
	wantAPIError(t, err, 400, "Number of ids cannot exceed 1000")

	full := gmailService(t, s, ada, GmailFullScope)
	must(t, full.Users.Messages.BatchDelete("me", &gmail.BatchDeleteMessagesRequest{Ids: many[:500]}).Do())
	if p, _ := svc.Users.GetProfile("me").Do(); p.MessagesTotal != 501 || p.ThreadsTotal != 501 {
		t.Errorf("after batchDelete: %+v", p)
	}
}

func TestGmailThreads(t *testing.T) {
	s := newTestServer(t)
	svc := gmailService(t, s, ada)
	first := deliver(t, s, ada, rawMail(bob, ada, "Plans", "first", "Message-ID: <p1@example.org>"))
	reply := deliver(t, s, ada, rawMail(bob, ada, "RE: plans", "second", "Message-ID: <p2@example.org>", "In-Reply-To: <p1@example.org>"))
	other := deliver(t, s, ada, rawMail(bob, ada, "Other plans", "third", "In-Reply-To: <p1@example.org>"))

	th, err := svc.Users.Threads.Get("me", first).Do()
	must(t, err)
	if !slices.Equal(ids(th.Messages), []string{first, reply}) || th.Messages[1].ThreadId != first || th.Messages[0].Payload == nil ||
		th.HistoryId != th.Messages[1].HistoryId {
		t.Errorf("thread %v, history %d", ids(th.Messages), th.HistoryId)
	}
	th, err = svc.Users.Threads.Get("me", first).Format("metadata").MetadataHeaders("Subject").Do()
	if err != nil || len(th.Messages[1].Payload.Headers) != 1 {
		t.Errorf("thread metadata %+v, %v", th, err)
	}
	_, err = svc.Users.Threads.Get("me", first).Format("raw").Do()
	wantAPIError(t, err, 400, "Invalid value at 'format'")
	list, err := svc.Users.Threads.List("me").Do()
	if err != nil || len(list.Threads) != 2 || list.Threads[0].Id != other || list.Threads[1].Snippet != "second" {
		t.Errorf("threads %+v, %v", list.Threads, err)
	}
	th, err = svc.Users.Threads.Modify("me", first, &gmail.ModifyThreadRequest{RemoveLabelIds: []string{"UNREAD"}}).Do()
	if err != nil || len(th.Messages) != 2 || slices.Contains(th.Messages[1].LabelIds, "UNREAD") {
		t.Errorf("thread modify %+v, %v", th, err)
	}
	if _, err := svc.Users.Threads.Trash("me", first).Do(); err != nil {
		t.Fatal(err)
	}
	if l, _ := svc.Users.Threads.List("me").Do(); len(l.Threads) != 1 {
		t.Errorf("a trashed thread listed")
	}
	if l, _ := svc.Users.Threads.List("me").Q("in:trash").Do(); len(l.Threads) != 1 || l.Threads[0].Id != first {
		t.Errorf("in:trash threads %+v", l.Threads)
	}
	th, err = svc.Users.Threads.Untrash("me", first).Do()
	if err != nil || slices.Contains(th.Messages[0].LabelIds, "TRASH") {
		t.Errorf("untrash thread %+v, %v", th, err)
	}
	_, err = svc.Users.Threads.Get("me", "0000000000000001").Do()
	wantAPIError(t, err, 404, "not found")
	full := gmailService(t, s, ada, GmailFullScope)
	must(t, full.Users.Threads.Delete("me", first).Do())
	if n := len(s.Messages(ada)); n != 1 || !strings.Contains(string(s.Messages(ada)[0].Raw), "third") {
		t.Errorf("%d messages left after threads.delete", n)
	}
}
