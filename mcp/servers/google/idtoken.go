package google

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// idClaims are the claims of an ID token that a sign-in reads.
type idClaims struct {
	Audience string `json:"aud"`
	Email    string `json:"email"`
}

// parseIDToken reads the claims of a JWT's payload without checking its
// signature: the token came straight from the token endpoint over TLS
// (OpenID Connect Core §3.1.3.7), so there is nothing to verify.
//
// google.golang.org/api/idtoken.ParsePayload does the same, but that
// package links Google's cloud auth, gRPC and OpenTelemetry into every
// binary that signs in — mcptray's own, which runs no Google API client
// (the Google servers are mcptray-google: docs/google-accounts.md).
func parseIDToken(raw string) (idClaims, error) {
	var c idClaims
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		return c, errors.New("not a JWT (it should have three dot-separated parts)")
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return c, fmt.Errorf("its payload is not base64url: %w", err)
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		return c, fmt.Errorf("its payload is not a JSON object: %w", err)
	}
	return c, nil
}
