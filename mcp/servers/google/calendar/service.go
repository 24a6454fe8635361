package calendar

import (
	"context"
	"net/http"

	"github.com/mcptray/mcptray/mcp/servers/google"
	gcal "google.golang.org/api/calendar/v3"
	"google.golang.org/api/option"
)

// newService is the official Calendar client for hc (an authorized client
// from AccountSource.Client), its requests sent under google.APIURL().
// Calendar's base path already holds its service path.
func newService(ctx context.Context, hc *http.Client) (*gcal.Service, error) {
	return gcal.NewService(ctx, option.WithHTTPClient(hc), option.WithEndpoint(google.APIURL()+"calendar/v3/"))
}
