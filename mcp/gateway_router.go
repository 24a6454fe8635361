package mcp

import (
	"context"

	"github.com/mcptray/mcptray/mcp/downstream"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// gwAttachment is the Router of one server's sessions: the gateway and the
// server's name in it. Tap and TapElicit are in gateway_call.go and
// gateway_elicit.go.
type gwAttachment struct {
	g    *Gateway
	name string // the server's name in the gateway
}

// Router is the Router for the sessions of the server name: give it to
// StdioSpec.Router or HTTPSpec.Router, so that the gateway takes the
// server's elicitations while it starts; SetServer attaches it for good.
// Nil for a nil Gateway.
func (g *Gateway) Router(name string) downstream.Router {
	if g == nil {
		return nil
	}
	return &gwAttachment{g: g, name: name}
}

func (a *gwAttachment) Log(s *downstream.Session, p *sdk.LoggingMessageParams) {
	a.g.downstreamLog(a.name, s, p)
}

func (a *gwAttachment) ToolsListed(s *downstream.Session) { a.g.toolsListed(a.name, s) }

func (a *gwAttachment) FeaturesChanged(s *downstream.Session) { a.g.featuresChanged(a.name, s) }

func (a *gwAttachment) ResourceUpdated(s *downstream.Session, p *sdk.ResourceUpdatedNotificationParams) {
	a.g.resourceUpdated(a.name, s, p)
}

func (a *gwAttachment) Progress(p *sdk.ProgressNotificationParams) { a.g.typedProgress(p) }

func (a *gwAttachment) ProgressSeen(n uint64) {
	if c := a.g.calls.get(n); c != nil {
		c.progressSeen.Add(1)
	}
}

func (a *gwAttachment) CreateMessage(ctx context.Context, s *downstream.Session, p *sdk.CreateMessageParams) (*sdk.CreateMessageResult, error) {
	return a.g.createMessage(ctx, a.name, s, p)
}

func (a *gwAttachment) Elicit(ctx context.Context, s *downstream.Session, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	return a.g.elicit(ctx, a.name, s, p, nil)
}

func (a *gwAttachment) ElicitationComplete(s *downstream.Session, p *sdk.ElicitationCompleteParams) {
	a.g.elicitationComplete(a.name, s, p)
}
