package control

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// Windows shown by other processes of the same binary (`mcptray window`,
// `mcptray popup`, app/remote) register with the instance, so that the
// tray raises the one that is open instead of starting another:
//
//	POST /v1/windows/{kind}   kind main or popup; a stream of JSON lines
//	                          (WindowSignal): {"raise": true, "tab": T}
//	                          each time the tray asks for a window of
//	                          that kind, {"quit": true} when the instance
//	                          quits (a crash says nothing: the window waits
//	                          for the next instance). The window is
//	                          registered while the stream lasts.
//
// Registering is the person's alone: 403 to a server's process (peer.go).
// A server that held the popup's place would keep the inbox's popup from
// opening.

// Window kinds.
const (
	WindowMain  = "main"  // the main window
	WindowPopup = "popup" // the inbox popup
)

// CheckWindowKind says what is wrong with a window kind, in words for the
// person.
func CheckWindowKind(kind string) error {
	switch kind {
	case WindowMain, WindowPopup:
		return nil
	}
	return fmt.Errorf("a window's kind is %q or %q, got %q", WindowMain, WindowPopup, kind)
}

// WindowSignal is one line of a window's stream: come to the front (on
// Tab, for the main window; "" for any), or close, mcptray quits.
type WindowSignal struct {
	Raise bool   `json:"raise,omitempty"`
	Tab   string `json:"tab,omitempty"`
	Quit  bool   `json:"quit,omitempty"`
}

func (h *Handler) windowRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/windows/{kind}", h.personOnly("register a window", func(w http.ResponseWriter, r *http.Request) {
		kind := r.PathValue("kind")
		if err := CheckWindowKind(kind); err != nil {
			writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
			return
		}
		raise, unregister := h.b.RegisterWindow(kind)
		defer unregister()
		signals := make(chan WindowSignal)
		go func() {
			defer close(signals)
			for {
				select {
				case s := <-raise:
					select {
					case signals <- s:
					case <-r.Context().Done():
						return
					}
				case <-r.Context().Done():
					return
				}
			}
		}()
		serveStream(w, r, signals)
	}))
}

// HoldWindow registers a window of kind with the instance while ctx
// lasts: the channel gets a value each time the tray asks for a window of
// that kind, and closes when ctx ends or the instance goes away (the
// window is then no longer registered). It returns once the window is
// registered.
func (cl *Client) HoldWindow(ctx context.Context, kind string) (<-chan WindowSignal, error) {
	if err := CheckWindowKind(kind); err != nil {
		return nil, err
	}
	return watch[WindowSignal](ctx, cl, http.MethodPost, "/v1/windows/"+url.PathEscape(kind), "registering the "+kind+" window")
}
