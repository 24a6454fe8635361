package oauthclient

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// discovery is what SignIn learns before go-sdk's handler runs.
type discovery struct {
	resource string
	scopes   []string // the server's scopes_supported
	asm      *oauthex.AuthServerMeta
}

// discover finds the server's authorization server the way go-sdk's
// handler does (its functions, in its order): protected-resource metadata
// from the challenge, then path-based, then at the root; the 2025-03-26
// fallback when there is none; then the authorization server's metadata.
func (c *Client) discover(ctx context.Context, serverURL string, challenges []oauthex.Challenge) (*discovery, error) {
	var prm *oauthex.ProtectedResourceMetadata
	for _, u := range prmURLs(metadataURL(challenges), serverURL) {
		p, err := oauthex.GetProtectedResourceMetadata(ctx, u.url, u.resource, c.hc)
		if err != nil || p == nil {
			continue
		}
		if len(p.AuthorizationServers) == 0 {
			return nil, errors.New("the server's protected-resource metadata names no authorization server")
		}
		prm = p
		break
	}
	if prm == nil {
		u, err := url.Parse(serverURL)
		if err != nil {
			return nil, fmt.Errorf("reading the server's URL: %w", err)
		}
		u.Path, u.RawQuery, u.Fragment = "", "", ""
		prm = &oauthex.ProtectedResourceMetadata{AuthorizationServers: []string{u.String()}, Resource: serverURL}
	}
	as := prm.AuthorizationServers[0]
	asm, err := auth.GetAuthServerMetadata(ctx, as, c.hc)
	if err != nil {
		return nil, fmt.Errorf("reading the authorization server's metadata at %s: %w", hostOf(as), err)
	}
	if asm == nil {
		asm = &oauthex.AuthServerMeta{Issuer: as, AuthorizationEndpoint: as + "/authorize",
			TokenEndpoint: as + "/token", RegistrationEndpoint: as + "/register"}
	}
	return &discovery{resource: prm.Resource, scopes: prm.ScopesSupported, asm: asm}, nil
}

type prmURL struct{ url, resource string }

// prmURLs is go-sdk's protectedResourceMetadataURLs (unexported there).
func prmURLs(metadataURL, resourceURL string) []prmURL {
	var urls []prmURL
	if metadataURL != "" {
		urls = append(urls, prmURL{metadataURL, resourceURL})
	}
	ru, err := url.Parse(resourceURL)
	if err != nil {
		return urls
	}
	mu := *ru
	mu.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(ru.Path, "/")
	urls = append(urls, prmURL{mu.String(), resourceURL})
	mu.Path = "/.well-known/oauth-protected-resource"
	ru.Path = ""
	urls = append(urls, prmURL{mu.String(), ru.String()})
	return urls
}

func metadataURL(cs []oauthex.Challenge) string {
	for _, c := range cs {
		if u := c.Params["resource_metadata"]; u != "" {
			return u
		}
	}
	return ""
}

func challengeScopes(cs []oauthex.Challenge) []string {
	for _, c := range cs {
		if c.Scheme == "bearer" && c.Params["scope"] != "" {
			return strings.Fields(c.Params["scope"])
		}
	}
	return nil
}

func challengeError(cs []oauthex.Challenge) string {
	for _, c := range cs {
		if c.Scheme == "bearer" && c.Params["error"] != "" {
			return c.Params["error"]
		}
	}
	return ""
}

// hostOf is u's host, or u when it has none.
func hostOf(u string) string {
	if p, err := url.Parse(u); err == nil && p.Host != "" {
		return p.Host
	}
	return u
}

// union is a's scopes followed by those of bs not in a, in order.
func union(a []string, bs ...[]string) []string {
	out := append([]string(nil), a...)
	for _, b := range bs {
		for _, s := range b {
			if !contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
