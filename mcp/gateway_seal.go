package mcp

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A server's requestState relayed to an assistant on 2026-07-28 goes out
// sealed: the gateway's own requestState names the server, the tool and
// the server's state, with an HMAC-SHA256 under a key of this Gateway (a
// new one each time mcptray starts), so that the retry the assistant
// sends back reaches only the server and tool it came from, as it came,
// and not after sealLife. The server's state is signed, not hidden: it is
// what a client talking to the server directly would hold. Nothing the
// person typed goes into it.

// sealPrefix starts every sealed requestState: its format's version.
const sealPrefix = "mcptray.1."

// sealLife is how long a sealed requestState may come back.
const sealLife = 30 * time.Minute

// Errors of a requestState that cannot be opened; the assistant reads
// them (wrapped with the call's server).
var (
	errStateForeign  = errors.New("the requestState was not made by this mcptray (it may have restarted since): call the tool again without it")
	errStateTampered = errors.New("the requestState was changed: call the tool again without it")
	errStateExpired  = errors.New("the requestState is too old: call the tool again without it")
)

// stateSeal seals and opens requestStates with one key.
type stateSeal struct {
	key [32]byte
	now func() time.Time // time.Now; tests move it
}

func newStateSeal() *stateSeal {
	s := &stateSeal{now: time.Now}
	rand.Read(s.key[:])
	return s
}

// sealedState is what a sealed requestState holds.
type sealedState struct {
	Server string          `json:"s"`
	Tool   string          `json:"t"`
	State  json.RawMessage `json:"r,omitempty"` // the server's requestState as it came (a JSON string), or none
	Park   uint64          `json:"p,omitempty"` // a parked call's number (gateway_park.go), or 0
	Until  int64           `json:"u"`           // Unix seconds: not accepted after
}

// seal is the requestState the assistant gets for the server's state
// (raw JSON, nil for none) of a call of tool on server.
func (k *stateSeal) seal(server, tool string, state []byte) string {
	return k.sealState(sealedState{Server: server, Tool: tool, State: state})
}

// sealPark is the requestState the assistant gets for the parked call n
// of tool on server (gateway_park.go).
func (k *stateSeal) sealPark(server, tool string, n uint64) string {
	return k.sealState(sealedState{Server: server, Tool: tool, Park: n})
}

func (k *stateSeal) sealState(st sealedState) string {
	st.Until = k.now().Add(sealLife).Unix()
	b, _ := json.Marshal(st)
	body := base64.RawURLEncoding.EncodeToString(b)
	return sealPrefix + body + "." + base64.RawURLEncoding.EncodeToString(k.mac(body))
}

func (k *stateSeal) mac(body string) []byte {
	m := hmac.New(sha256.New, k.key[:])
	m.Write([]byte(sealPrefix))
	m.Write([]byte(body))
	return m.Sum(nil)
}

// open checks a requestState an assistant sent back for a call of tool
// on server and returns the server's state in it (raw JSON, nil for
// none).
func (k *stateSeal) open(sealed, server, tool string) ([]byte, error) {
	_, state, err := k.openPark(sealed, server, tool)
	return state, err
}

// openPark is open that also returns the parked call the state names (0
// for none).
func (k *stateSeal) openPark(sealed, server, tool string) (park uint64, state []byte, err error) {
	rest, ok := strings.CutPrefix(sealed, sealPrefix)
	if !ok {
		return 0, nil, errStateForeign
	}
	body, sig, ok := strings.Cut(rest, ".")
	if !ok {
		return 0, nil, errStateTampered
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, k.mac(body)) {
		// Another key's seal and a changed one look the same: say both.
		return 0, nil, fmt.Errorf("%w (or it was made by another mcptray, or before mcptray restarted)", errStateTampered)
	}
	b, err := base64.RawURLEncoding.DecodeString(body)
	var st sealedState
	if err != nil || json.Unmarshal(b, &st) != nil {
		return 0, nil, errStateTampered // signed by us, so not reached
	}
	switch {
	case st.Server != server || st.Tool != tool:
		return 0, nil, fmt.Errorf("the requestState belongs to a call of %q on server %q, not of %q on %q: call the tool again without it",
			st.Tool, st.Server, tool, server)
	case k.now().Unix() > st.Until:
		return 0, nil, errStateExpired
	}
	if len(st.State) == 0 || bytes.Equal(st.State, []byte("null")) {
		return st.Park, nil, nil
	}
	return st.Park, st.State, nil
}
