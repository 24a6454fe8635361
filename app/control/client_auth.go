package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/mcptray/mcptray/app/config"
)

// AuthList lists the remote servers' sign-ins (never a token).
func (cl *Client) AuthList(ctx context.Context) ([]AuthInfo, error) {
	var l AuthList
	if err := cl.do(ctx, http.MethodGet, "/v1/auth", &l); err != nil {
		return nil, err
	}
	return l.Servers, nil
}

// SignOut asks the instance to forget name's tokens and restart it.
func (cl *Client) SignOut(ctx context.Context, name string) error {
	return cl.do(ctx, http.MethodPost, "/v1/auth/"+url.PathEscape(name)+"/logout", nil)
}

// AskSignIn asks the instance to put name's sign-in request in the
// inbox again.
func (cl *Client) AskSignIn(ctx context.Context, name string) error {
	return cl.do(ctx, http.MethodPost, "/v1/auth/"+url.PathEscape(name)+"/ask", nil)
}

// CompleteSignIn hands the instance the address the person's browser
// ended on, for name's sign-in under way (a browser on another machine).
func (cl *Client) CompleteSignIn(ctx context.Context, name, redirect string) error {
	body, _ := json.Marshal(completeBody{Redirect: redirect})
	r, err := cl.request(ctx, http.MethodPost, "/v1/auth/"+url.PathEscape(name)+"/complete", body)
	if err != nil {
		return err
	}
	if r.status != http.StatusOK {
		return r.err(nil)
	}
	return nil
}

// SignIn asks the instance to sign the person in to name, and waits for
// the outcome. With onURL nil the instance opens its browser; otherwise
// onURL gets the address to visit (`auth login --no-browser`).
func (cl *Client) SignIn(ctx context.Context, name string, onURL func(string)) (AuthInfo, error) {
	path := "/v1/auth/" + url.PathEscape(name) + "/login"
	if onURL != nil {
		path += "?browser=client"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://mcptray"+path, nil)
	if err != nil {
		return AuthInfo{}, err
	}
	resp, err := cl.http.Do(req)
	if err != nil {
		return AuthInfo{}, talkError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := readSome(resp)
		r := reply{status: resp.StatusCode, text: resp.Status, body: b}
		if resp.StatusCode == http.StatusNotFound {
			return AuthInfo{}, r.err(config.ErrNoServer)
		}
		return AuthInfo{}, r.err(nil)
	}
	sc := bufio.NewScanner(io.LimitReader(resp.Body, 1<<20))
	sc.Buffer(nil, 64<<10)
	for sc.Scan() {
		var l signInLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return AuthInfo{}, fmt.Errorf("reading the sign-in's reply: %w", err)
		}
		switch {
		case l.Error != "":
			return AuthInfo{}, errors.New(l.Error)
		case l.Info != nil:
			return *l.Info, nil
		case l.URL != "" && onURL != nil:
			onURL(l.URL)
		}
	}
	if err := sc.Err(); err != nil {
		return AuthInfo{}, talkError(err)
	}
	return AuthInfo{}, errors.New("the sign-in ended with no outcome (mcptray stopped?)")
}
