package gmail

import (
	"context"
	"net/http"

	"github.com/mcptray/mcptray/mcp/servers/google"
	gm "google.golang.org/api/gmail/v1"
	"google.golang.org/api/option"
)

// newService is the official Gmail client for hc (an authorized client
// from AccountSource.Client), its requests sent under google.APIURL():
// Gmail puts gmail/v1/users/… under its base.
func newService(ctx context.Context, hc *http.Client) (*gm.Service, error) {
	return gm.NewService(ctx, option.WithHTTPClient(hc), option.WithEndpoint(google.APIURL()))
}
