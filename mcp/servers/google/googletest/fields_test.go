package googletest

import (
	"encoding/json"
	"testing"

	"google.golang.org/api/googleapi"
)

func TestFieldSelection(t *testing.T) {
	doc := `{"messages":[{"id":"a","threadId":"t","labelIds":["X"]},{"id":"b","threadId":"u"}],"nextPageToken":"p",` +
		`"payload":{"headers":[{"name":"Subject","value":"s"}],"body":{"size":1}},"resultSizeEstimate":2}`
	for sel, want := range map[string]string{
		"messages(id,threadId),nextPageToken": `{"messages":[{"id":"a","threadId":"t"},{"id":"b","threadId":"u"}],"nextPageToken":"p"}`,
		"messages/id":                         `{"messages":[{"id":"a"},{"id":"b"}]}`,
		"payload/headers(name),messages/id":   `{"messages":[{"id":"a"},{"id":"b"}],"payload":{"headers":[{"name":"Subject"}]}}`,
		"payload/body/size,payload(headers)":  `{"payload":{"body":{"size":1},"headers":[{"name":"Subject","value":"s"}]}}`,
		"messages,messages/id":                `{"messages":[{"id":"a","labelIds":["X"],"threadId":"t"},{"id":"b","threadId":"u"}]}`,
		"*":                                   doc,
	} {
		s, err := parseSelection(sel)
		if err != nil {
			t.Errorf("%s: %v", sel, err)
			continue
		}
		var v, w any
		json.Unmarshal([]byte(doc), &v)
		json.Unmarshal([]byte(want), &w)
		got, _ := json.Marshal(s.apply(v))
		wb, _ := json.Marshal(w)
		if string(got) != string(wb) {
			t.Errorf("%s:\n%s\nwant\n%s", sel, got, wb)
		}
	}
	for _, bad := range []string{"", "a,", "a(b", "a)", "a/"} {
		if _, err := parseSelection(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestGmailPartialResponses(t *testing.T) {
	s := newTestServer(t)
	svc := gmailService(t, s, ada)
	id := deliver(t, s, ada, rawMail(bob, ada, "hi", "x"))
	l, err := svc.Users.Messages.List("me").Fields("messages(id)").Do()
	if err != nil || len(l.Messages) != 1 || l.Messages[0].Id != id || l.Messages[0].ThreadId != "" || l.ResultSizeEstimate != 0 {
		t.Errorf("partial list %+v, %v", l, err)
	}
	m, err := svc.Users.Messages.Get("me", id).Fields(googleapi.Field("id"), "payload/headers").Do()
	if err != nil || m.Id != id || m.Snippet != "" || m.Payload == nil || header(m.Payload, "Subject") != "hi" || m.Payload.Body != nil {
		t.Errorf("partial message %+v, %v", m, err)
	}
	_, err = svc.Users.Messages.Get("me", id).Fields("payload(").Do()
	wantAPIError(t, err, 400, "Invalid field selection")
}
