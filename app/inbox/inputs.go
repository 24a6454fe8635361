package inbox

import (
	"context"
	"errors"
	"sync"

	"github.com/mcptray/mcptray/store"
)

// ErrNoInputValue is wrapped when no value of an ${input:ID} was stored to
// forget (app.Core.ForgetInput, the control API's 404).
var ErrNoInputValue = errors.New("no value stored")

// Inputs holds the ${input:ID} values (VS Code's "inputs") known in this
// process and the questions for them being asked. Where a value is kept
// beyond the process (the keyring or the store) and when a question is
// put to the person are the owner's (app/inbox_inputs.go); Inputs makes
// sure one question is asked per input however many servers wait for it.
// Its methods are safe for concurrent use.
type Inputs struct {
	mu     sync.Mutex
	values map[string]string    // guarded by mu: given values, by input id
	secret map[string]bool      // guarded by mu: the ids in values that are passwords
	asks   map[string]*inputAsk // guarded by mu: inbox questions in flight, by input id
}

// inputAsk is one inbox question for an input; every server waiting for
// that input waits on it.
type inputAsk struct {
	done    chan struct{} // closed when answered
	outcome string        // accept, decline, cancel or timeout; written before done closes
}

// NewInputs returns an empty set of inputs.
func NewInputs() *Inputs {
	return &Inputs{values: map[string]string{}, secret: map[string]bool{}, asks: map[string]*inputAsk{}}
}

// Value returns the value of input id given in this process, if any.
func (s *Inputs) Value(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.values[id]
	return v, ok
}

// Set keeps the value of input id; password marks it as one to redact.
func (s *Inputs) Set(id, value string, password bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.values[id] = value
	s.secret[id] = password
}

// Forget drops the value of input id, and reports whether there was one.
func (s *Inputs) Forget(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, had := s.values[id]
	delete(s.values, id)
	delete(s.secret, id)
	return had
}

// Passwords are the values of the password inputs given so far, for a
// server's session to redact from its first line on.
func (s *Inputs) Passwords() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for id, v := range s.values {
		if s.secret[id] {
			out = append(out, v)
		}
	}
	return out
}

// Ask asks for input id once, however many callers wait for it: the first
// caller starts ask on a goroutine of its own (with that caller's ctx,
// which ask should pass to Inbox.Ask), and every caller until ask returns
// waits for the same outcome: accept, decline, cancel or timeout. A caller
// whose ctx ends stops waiting and gets cancel; ask goes on for the
// others.
func (s *Inputs) Ask(ctx context.Context, id string, ask func(ctx context.Context) (outcome string)) string {
	s.mu.Lock()
	a := s.asks[id]
	if a == nil {
		a = &inputAsk{done: make(chan struct{})}
		s.asks[id] = a
		go func() {
			defer func() {
				s.mu.Lock()
				delete(s.asks, id)
				s.mu.Unlock()
				close(a.done)
			}()
			a.outcome = ask(ctx)
		}()
	}
	s.mu.Unlock()
	select {
	case <-a.done:
		return a.outcome
	case <-ctx.Done():
		return store.OutcomeCancel
	}
}
