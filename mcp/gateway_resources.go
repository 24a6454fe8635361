package mcp

import (
	"context"
	"slices"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BuiltinResource is one of mcptray's own resources, such as
// mcptray://events. Aggregate routes list it; a read calls Read; a
// subscription is kept by the gateway, and Gateway.ResourceUpdated sends
// notifications/resources/updated to the sessions that hold one.
type BuiltinResource struct {
	URI         string // e.g. "mcptray://events"
	Name        string
	Title       string
	Description string
	MIMEType    string
	// Read returns the resource's current content as text.
	Read func(ctx context.Context) (string, error)
}

// builtinSubServer is the server name under which subscriptions to
// builtin resources are counted (no configured server has an empty name).
const builtinSubServer = ""

// builtinResource returns the builtin resource with uri, or nil.
func (g *Gateway) builtinResource(uri string) *BuiltinResource {
	for i := range g.opts.BuiltinResources {
		if g.opts.BuiltinResources[i].URI == uri {
			return &g.opts.BuiltinResources[i]
		}
	}
	return nil
}

// isBuiltinResource reports whether the view shows uri as mcptray's own.
func (v *view) isBuiltinResource(uri string) bool {
	return v.key.aggregate() && v.g.builtinResource(uri) != nil
}

// addBuiltinResources puts the builtin resources first in an aggregate
// view's resources; a server that lists the same URI loses it (and the
// collision is logged). It returns their URIs in order.
func (g *Gateway) addBuiltinResources(rt *routeTable, resources map[string]*sdk.Resource) []string {
	var order []string
	for _, b := range g.opts.BuiltinResources {
		if _, dup := resources[b.URI]; dup {
			continue
		}
		rt.resources[b.URI] = builtinHost
		resources[b.URI] = &sdk.Resource{URI: b.URI, Name: b.Name, Title: b.Title, Description: b.Description, MIMEType: b.MIMEType}
		order = append(order, b.URI)
	}
	return order
}

// resourceHandlerFor is the read handler of a resource the view lists.
func (v *view) resourceHandlerFor(rt *routeTable, uri string) sdk.ResourceHandler {
	if b := v.g.builtinResource(uri); b != nil && v.key.aggregate() {
		return func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			text, err := b.Read(ctx)
			if err != nil {
				return nil, err
			}
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: b.URI, MIMEType: b.MIMEType, Text: text}}}, nil
		}
	}
	return v.g.resourceHandler(v.key.aggregate(), rt.resources[uri])
}

// ResourceUpdated sends notifications/resources/updated for the builtin
// resource uri to every upstream session subscribed to it. Cheap when
// nobody is.
func (g *Gateway) ResourceUpdated(uri string) {
	g.mu.Lock()
	if g.subs[subKey{builtinSubServer, uri}] <= 0 {
		g.mu.Unlock()
		return
	}
	var views []*view
	for _, v := range g.views {
		if v.key.aggregate() {
			views = append(views, v)
		}
	}
	g.mu.Unlock()
	slices.SortFunc(views, func(a, b *view) int { return cmpString(a.key.mode, b.key.mode) })
	for _, v := range views {
		v.srv.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: uri})
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
