package googletest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"google.golang.org/api/gmail/v1"
	"google.golang.org/api/googleapi"
)

// historyKinds sums up records as "kind:message:labels" strings.
func historyKinds(h []*gmail.History) []string {
	var out []string
	for _, r := range h {
		for _, a := range r.MessagesAdded {
			out = append(out, fmt.Sprint("added:", a.Message.Id, ":", a.Message.LabelIds))
		}
		for _, d := range r.MessagesDeleted {
			out = append(out, fmt.Sprint("deleted:", d.Message.Id))
		}
		for _, a := range r.LabelsAdded {
			out = append(out, fmt.Sprint("labelAdded:", a.Message.Id, ":", a.LabelIds))
		}
		for _, a := range r.LabelsRemoved {
			out = append(out, fmt.Sprint("labelRemoved:", a.Message.Id, ":", a.LabelIds))
		}
		if len(r.Messages) != 1 {
			panic("a record of one message change lists it")
		}
	}
	return out
}

func TestGmailHistory(t *testing.T) {
	s := newTestServer(t)
	svc := gmailService(t, s, ada)
	p, err := svc.Users.GetProfile("me").Do()
	must(t, err)
	start := p.HistoryId
	since := func(from uint64, types ...string) *gmail.ListHistoryResponse {
		t.Helper()
		h, err := svc.Users.History.List("me").StartHistoryId(from).HistoryTypes(types...).Do()
		must(t, err)
		return h
	}
	if h := since(start); h.History != nil || h.HistoryId != start {
		t.Fatalf("no change yet: %+v", h)
	}

	in := deliver(t, s, ada, rawMail(bob, ada, "hi", "x"))
	h := since(start)
	if got := historyKinds(h.History); !slices.Equal(got, []string{"added:" + in + ":[INBOX UNREAD]"}) || h.HistoryId <= start {
		t.Fatalf("after a delivery %v, historyId %d", got, h.HistoryId)
	}
	afterDelivery := h.HistoryId
	m, err := svc.Users.Messages.Get("me", in).Format("minimal").Do()
	if err != nil || m.HistoryId != afterDelivery {
		t.Errorf("the message's historyId %d, want %d", m.HistoryId, afterDelivery)
	}

	_, err = svc.Users.Messages.Modify("me", in, &gmail.ModifyMessageRequest{AddLabelIds: []string{"STARRED"}, RemoveLabelIds: []string{"UNREAD"}}).Do()
	must(t, err)
	sent, err := svc.Users.Messages.Send("me", &gmail.Message{Raw: b64(rawMail(ada, bob, "out", "y"))}).Do()
	must(t, err)
	d, err := svc.Users.Drafts.Create("me", &gmail.Draft{Message: &gmail.Message{Raw: b64(rawMail(ada, bob, "d", "z"))}}).Do()
	must(t, err)
	must(t, svc.Users.Drafts.Delete("me", d.Id).Do())
	_, err = svc.Users.Messages.Modify("me", in, &gmail.ModifyMessageRequest{AddLabelIds: []string{"STARRED"}}).Do() // no change
	must(t, err)
	must(t, s.DeleteMessage(ada, sent.Id))

	want := []string{
		"labelAdded:" + in + ":[STARRED]", "labelRemoved:" + in + ":[UNREAD]",
		"added:" + sent.Id + ":[SENT]", "added:" + d.Message.Id + ":[DRAFT]", "deleted:" + d.Message.Id, "deleted:" + sent.Id,
	}
	h = since(afterDelivery)
	if got := historyKinds(h.History); !slices.Equal(got, want) {
		t.Errorf("history\n%v\nwant\n%v", got, want)
	}
	last := h.HistoryId
	for i := 1; i < len(h.History); i++ {
		if h.History[i].Id <= h.History[i-1].Id || h.History[i].Id > last {
			t.Errorf("record ids out of order: %d after %d (latest %d)", h.History[i].Id, h.History[i-1].Id, last)
		}
	}
	if got := historyKinds(since(afterDelivery, "messageDeleted").History); len(got) != 2 {
		t.Errorf("historyTypes=messageDeleted: %v", got)
	}
	if got := historyKinds(since(afterDelivery, "labelAdded", "labelRemoved").History); len(got) != 2 {
		t.Errorf("historyTypes=label*: %v", got)
	}
	lh, err := svc.Users.History.List("me").StartHistoryId(start).LabelId("SENT").Do()
	// (a deletion counts for the labels the message had)
	if got := historyKinds(lh.History); err != nil || !slices.Equal(got, []string{"added:" + sent.Id + ":[SENT]", "deleted:" + sent.Id}) {
		t.Errorf("labelId=SENT: %v, %v", got, err)
	}

	// Paging.
	var all []string
	pages := 0
	err = svc.Users.History.List("me").StartHistoryId(start).MaxResults(2).Pages(context.Background(), func(r *gmail.ListHistoryResponse) error {
		pages++
		all = append(all, historyKinds(r.History)...)
		if r.HistoryId != last {
			t.Errorf("a page's historyId %d, want %d", r.HistoryId, last)
		}
		return nil
	})
	if err != nil || pages != 4 || len(all) != 7 {
		t.Errorf("%d pages, %d records: %v", pages, len(all), err)
	}

	// Refusals: missing, beyond the latest, and expired.
	_, err = svc.Users.History.List("me").Do()
	wantAPIError(t, err, 400, "Missing/invalid parameter: startHistoryId")
	_, err = svc.Users.History.List("me").StartHistoryId(last + 1000).Do()
	wantAPIError(t, err, 404, "Requested entity was not found.")
	_, err = svc.Users.History.List("me").StartHistoryId(start).HistoryTypes("messageMoved").Do()
	wantAPIError(t, err, 400, "history_types")
	s.ExpireHistory(ada)
	_, err = svc.Users.History.List("me").StartHistoryId(last - 1).Do()
	wantAPIError(t, err, 404, "Requested entity was not found.")
	var ge *googleapi.Error
	if !errors.As(err, &ge) || len(ge.Errors) != 1 || ge.Errors[0].Reason != "notFound" {
		t.Errorf("the 404's reason: %+v", err)
	}
	if h := since(last); h.History != nil || h.HistoryId != last {
		t.Errorf("from the latest historyId after expiry: %+v", h)
	}
	deliver(t, s, ada, rawMail(bob, ada, "later", "x"))
	if got := historyKinds(since(last).History); len(got) != 1 {
		t.Errorf("after expiry, a new delivery: %v", got)
	}
}

func TestGmailLabels(t *testing.T) {
	s := newTestServer(t)
	svc := gmailService(t, s, ada)
	list, err := svc.Users.Labels.List("me").Do()
	must(t, err)
	var names []string
	for _, l := range list.Labels {
		names = append(names, l.Id)
		if l.Type != "system" || l.MessagesTotal != 0 {
			t.Errorf("label %+v", l)
		}
	}
	for _, id := range []string{"INBOX", "SENT", "DRAFT", "TRASH", "SPAM", "UNREAD", "STARRED", "IMPORTANT", "CATEGORY_PERSONAL", "CATEGORY_UPDATES"} {
		if !slices.Contains(names, id) {
			t.Errorf("no system label %s in %v", id, names)
		}
	}
	l, err := svc.Users.Labels.Create("me", &gmail.Label{Name: "Receipts"}).Do()
	if err != nil || l.Id != "Label_1" || l.Type != "user" || l.LabelListVisibility != "labelShow" || l.MessageListVisibility != "show" {
		t.Fatalf("created %+v, %v", l, err)
	}
	_, err = svc.Users.Labels.Create("me", &gmail.Label{Name: "receipts"}).Do()
	wantAPIError(t, err, 409, "Label name exists or conflicts")
	_, err = svc.Users.Labels.Create("me", &gmail.Label{Name: "Inbox"}).Do()
	wantAPIError(t, err, 400, "Invalid label name")
	_, err = svc.Users.Labels.Create("me", &gmail.Label{Name: "x", LabelListVisibility: "sometimes"}).Do()
	wantAPIError(t, err, 400, "Invalid label visibility")

	id := deliver(t, s, ada, rawMail(bob, ada, "receipt", "x"), l.Id)
	deliver(t, s, ada, rawMail(bob, ada, "Re: receipt", "y", "In-Reply-To: <none@x>"), l.Id)
	got, err := svc.Users.Labels.Get("me", l.Id).Do()
	if err != nil || got.MessagesTotal != 2 || got.MessagesUnread != 2 || got.ThreadsTotal != 2 || got.ThreadsUnread != 2 {
		t.Errorf("counts %+v, %v", got, err)
	}
	inbox, err := svc.Users.Labels.Get("me", "INBOX").Do()
	if err != nil || inbox.MessagesTotal != 2 || inbox.Type != "system" {
		t.Errorf("INBOX %+v, %v", inbox, err)
	}

	p, err := svc.Users.Labels.Patch("me", l.Id, &gmail.Label{Name: "Bills", Color: &gmail.LabelColor{BackgroundColor: "#16a765", TextColor: "#ffffff"}}).Do()
	if err != nil || p.Name != "Bills" || p.Color == nil || p.LabelListVisibility != "labelShow" {
		t.Errorf("patched %+v, %v", p, err)
	}
	u, err := svc.Users.Labels.Update("me", l.Id, &gmail.Label{Id: l.Id, Name: "Bills", LabelListVisibility: "labelHide"}).Do()
	if err != nil || u.Color != nil || u.LabelListVisibility != "labelHide" {
		t.Errorf("updated %+v, %v", u, err)
	}
	other, _ := svc.Users.Labels.Create("me", &gmail.Label{Name: "Other"}).Do()
	_, err = svc.Users.Labels.Patch("me", other.Id, &gmail.Label{Name: "BILLS"}).Do()
	wantAPIError(t, err, 409, "Label name exists")
	_, err = svc.Users.Labels.Patch("me", "INBOX", &gmail.Label{Name: "In"}).Do()
	wantAPIError(t, err, 400, "Invalid update request")
	err = svc.Users.Labels.Delete("me", "INBOX").Do()
	wantAPIError(t, err, 400, "Invalid delete request")

	start := s.GmailHistoryID(ada)
	must(t, svc.Users.Labels.Delete("me", l.Id).Do())
	_, err = svc.Users.Labels.Get("me", l.Id).Do()
	wantAPIError(t, err, 404, "not found")
	m, _ := svc.Users.Messages.Get("me", id).Format("minimal").Do()
	if slices.Contains(m.LabelIds, l.Id) {
		t.Errorf("a deleted label stays on a message: %v", m.LabelIds)
	}
	h, err := svc.Users.History.List("me").StartHistoryId(start).HistoryTypes("labelRemoved").Do()
	if err != nil || len(h.History) != 2 {
		t.Errorf("deleting a label records its removals: %+v, %v", h, err)
	}
}

func TestGmailRateLimits(t *testing.T) {
	s := newTestServer(t)
	svc := gmailService(t, s, ada)
	cal := calService(t, s, ada, CalendarScope)
	s.InjectRateLimits(RateLimit{Code: 429, RetryAfter: "3", API: APIGmail},
		RateLimit{Code: 403, Reason: "userRateLimitExceeded", API: APIGmail})
	if _, err := cal.CalendarList.List().Do(); err != nil {
		t.Errorf("a limit aimed at Gmail answered Calendar: %v", err)
	}
	_, err := svc.Users.History.List("me").StartHistoryId(firstHistoryID).Do()
	var ge *googleapi.Error
	if !errors.As(err, &ge) || ge.Code != 429 || ge.Header.Get("Retry-After") != "3" || ge.Errors[0].Reason != "rateLimitExceeded" {
		t.Errorf("first: %v", err)
	}
	_, err = svc.Users.History.List("me").StartHistoryId(firstHistoryID).Do()
	if !errors.As(err, &ge) || ge.Code != 403 || ge.Errors[0].Reason != "userRateLimitExceeded" {
		t.Errorf("second: %v", err)
	}
	if _, err := svc.Users.History.List("me").StartHistoryId(firstHistoryID).Do(); err != nil {
		t.Errorf("after the limits: %v", err)
	}
	if n := s.GmailRequests("GET /gmail/v1/users/{userId}/history"); n != 3 {
		t.Errorf("counted %d history.list", n)
	}
	if n := s.GmailRequests("GET /gmail/v1/users/me/history"); n != 3 {
		t.Errorf("counted %d history.list by path", n)
	}
	if n := s.CalendarRequests("GET /calendar/v3/users/me/calendarList"); n != 1 || len(s.RecordedGmailRequests()) != 3 {
		t.Errorf("the APIs' requests mixed: %d calendar, %d gmail", n, len(s.RecordedGmailRequests()))
	}
	s.InjectRateLimits(RateLimit{Code: 429})
	_, err = cal.Events.List("primary").Do()
	wantAPIError(t, err, 429, "Rate Limit Exceeded")
	if _, err := svc.Users.GetProfile("me").Do(); err != nil {
		t.Errorf("a limit for any API answered twice: %v", err)
	}
}
