package oauthclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// tokenResponse is a token endpoint's answer (RFC 6749 §5).
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
	Error        string `json:"error"`
	ErrorDesc    string `json:"error_description"`
}

// postForm sends form to endpoint with the client's authentication
// (client_secret_basic, client_secret_post, or none: client_id alone).
func (c *Client) postForm(ctx context.Context, endpoint string, form url.Values, clientID, secret, method string) (*http.Response, error) {
	basic := secret != "" && method != "client_secret_post"
	if !basic {
		form.Set("client_id", clientID)
		if secret != "" {
			form.Set("client_secret", secret)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic {
		req.SetBasicAuth(url.QueryEscape(clientID), url.QueryEscape(secret))
	}
	return c.hc.Do(req)
}

// tokenRequest posts a token request and reads the answer; an OAuth error
// is an *oauth2.RetrieveError carrying its code (never the body).
func (c *Client) tokenRequest(ctx context.Context, endpoint string, form url.Values, clientID, secret, method string) (*tokenResponse, error) {
	resp, err := c.postForm(ctx, endpoint, form, clientID, secret, method)
	if err != nil {
		return nil, fmt.Errorf("reaching the token endpoint at %s: %w", hostOf(endpoint), redactURLError(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("reading the token endpoint's answer: %w", err)
	}
	var tr tokenResponse
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct == "application/x-www-form-urlencoded" || ct == "text/plain" {
		v, _ := url.ParseQuery(string(body))
		tr = tokenResponse{AccessToken: v.Get("access_token"), TokenType: v.Get("token_type"),
			RefreshToken: v.Get("refresh_token"), Scope: v.Get("scope"), Error: v.Get("error"), ErrorDesc: v.Get("error_description")}
		fmt.Sscan(v.Get("expires_in"), &tr.ExpiresIn)
	} else if err := json.Unmarshal(body, &tr); err != nil && resp.StatusCode < 300 {
		return nil, fmt.Errorf("the token endpoint at %s answered with no valid JSON", hostOf(endpoint))
	}
	if resp.StatusCode >= 300 || tr.Error != "" {
		return nil, &oauth2.RetrieveError{Response: &http.Response{StatusCode: resp.StatusCode, Status: resp.Status},
			ErrorCode: tr.Error, ErrorDescription: tr.ErrorDesc}
	}
	if tr.AccessToken == "" {
		return nil, fmt.Errorf("the token endpoint at %s sent no access token", hostOf(endpoint))
	}
	return &tr, nil
}

// redactURLError keeps a *url.Error's operation and cause, not its URL
// (a query could carry a code).
func redactURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// refresh trades r's refresh token for a new token set (RFC 6749 §6),
// with the resource (RFC 8707) exactly as the metadata said, and returns
// the record to save; a refresh token the answer leaves out is kept.
func (c *Client) refresh(ctx context.Context, r *tokenRecord, secret string) (*tokenRecord, error) {
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {r.RefreshToken}}
	if r.Resource != "" {
		form.Set("resource", r.Resource)
	}
	tr, err := c.tokenRequest(ctx, r.TokenEndpoint, form, r.ClientID, secret, r.AuthMethod)
	if err != nil {
		return nil, err
	}
	n := *r
	n.AccessToken, n.TokenType = tr.AccessToken, tr.TokenType
	if tr.RefreshToken != "" {
		n.RefreshToken = tr.RefreshToken
	}
	n.Expiry = time.Time{}
	if tr.ExpiresIn > 0 {
		n.Expiry = time.Now().Add(time.Duration(tr.ExpiresIn) * time.Second)
	}
	if tr.Scope != "" {
		n.Scopes = strings.Fields(tr.Scope)
	}
	return &n, nil
}

// revoke asks the authorization server to revoke token (RFC 7009).
func (c *Client) revoke(ctx context.Context, r *tokenRecord, secret, token, hint string) error {
	form := url.Values{"token": {token}, "token_type_hint": {hint}}
	resp, err := c.postForm(ctx, r.RevocationEndpoint, form, r.ClientID, secret, r.AuthMethod)
	if err != nil {
		return fmt.Errorf("reaching the revocation endpoint at %s: %w", hostOf(r.RevocationEndpoint), redactURLError(err))
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the revocation endpoint at %s answered %s", hostOf(r.RevocationEndpoint), resp.Status)
	}
	return nil
}

// registrationCheck is the refresh token registrationGone sends: one no
// authorization server issued.
const registrationCheck = "mcptray-registration-check"

// registrationGone asks the token endpoint whether it still knows a
// client: a refresh with a refresh token that cannot be valid is answered
// invalid_client for a client the provider deleted, invalid_grant for one
// it knows (RFC 6749 §5.2). A refresh, not a code exchange: an
// authorization server checks PKCE on every code it is sent. Anything
// else (no answer, another error, even a token) counts as known.
func (c *Client) registrationGone(ctx context.Context, tokenEndpoint string, reg *registration) bool {
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {registrationCheck}}
	_, err := c.tokenRequest(ctx, tokenEndpoint, form, reg.ClientID, reg.ClientSecret, reg.AuthMethod)
	var re *oauth2.RetrieveError
	return errors.As(err, &re) && re.ErrorCode == "invalid_client"
}

// isInvalidClient reports an OAuth invalid_client error.
func isInvalidClient(err error) bool {
	var re *oauth2.RetrieveError
	return errors.As(err, &re) && re.ErrorCode == "invalid_client"
}

// refusedGrant reports a refresh the authorization server refused (the
// refresh token is no good), as against one that did not get through.
func refusedGrant(err error) bool {
	var re *oauth2.RetrieveError
	return errors.As(err, &re) && (re.ErrorCode != "" || re.Response.StatusCode == http.StatusBadRequest || re.Response.StatusCode == http.StatusUnauthorized)
}
