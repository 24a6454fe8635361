package googletest

import (
	"net/http"
	"strings"

	"google.golang.org/api/gmail/v1"
)

// The account's profile and its send-as addresses.

// getProfile is users.getProfile.
func (g *gmailFake) getProfile(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	p := &gmail.Profile{EmailAddress: mb.email, MessagesTotal: int64(len(mb.msgs)), ThreadsTotal: int64(len(mb.threads)),
		HistoryId: mb.historyID, ForceSendFields: []string{"MessagesTotal", "ThreadsTotal"}}
	writeJSON(w, p)
}

func (mb *mailbox) sendAs(addr string) *gmail.SendAs {
	if strings.EqualFold(addr, mb.email) {
		return &gmail.SendAs{SendAsEmail: mb.email, IsPrimary: true, IsDefault: true}
	}
	for _, a := range mb.aliases {
		if strings.EqualFold(a, addr) {
			return &gmail.SendAs{SendAsEmail: a, TreatAsAlias: true, VerificationStatus: "accepted"}
		}
	}
	return nil
}

// listSendAs is settings.sendAs.list: the primary address, then the
// aliases.
func (g *gmailFake) listSendAs(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	out := &gmail.ListSendAsResponse{SendAs: []*gmail.SendAs{mb.sendAs(mb.email)}}
	for _, a := range mb.aliases {
		out.SendAs = append(out.SendAs, mb.sendAs(a))
	}
	writeJSON(w, out)
}

func (g *gmailFake) getSendAs(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	if sa := mb.sendAs(r.PathValue("sendAsEmail")); sa != nil {
		writeJSON(w, sa)
		return
	}
	notFound(w)
}
