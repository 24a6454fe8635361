package cli

import (
	"testing"

	"github.com/mcptray/mcptray/mcp"
	"github.com/mcptray/mcptray/mcp/servers/google"
)

// The Google servers mark their sign-ins with the key the gateway keeps in
// the inbox (the two packages may not import each other).
func TestGoogleSignInsAreMarkedForTheInbox(t *testing.T) {
	if google.InboxMeta != mcp.InboxOnlyMeta {
		t.Errorf("google.InboxMeta %q, the gateway's InboxOnlyMeta %q", google.InboxMeta, mcp.InboxOnlyMeta)
	}
}
