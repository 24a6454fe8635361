package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/store"
)

// ${input:ID} (VS Code's "inputs"): the value is asked through the inbox
// once, when an entry that uses it first starts; "password": true values
// go to the keyring (entry input/ID), others to the store. Until it is
// given, the entry is in state waiting-input. ForgetInput clears one, and
// the entries that use it ask again.

// SecretStore keeps small secrets: the OS keyring (app/keyring) by default.
// Get returns an error matching keyring.ErrNotFound for a missing entry.
type SecretStore interface {
	Get(name string) (string, error)
	Set(name, value string) error
	Delete(name string) error
}

// osKeyring is the OS keyring, with a timeout: a locked keyring may wait
// for the person to unlock it, and a reload must not hang on it.
type osKeyring struct{}

func (osKeyring) Get(name string) (string, error) {
	return keyring.WithTimeout(keyringTimeout, func() (string, error) { return keyring.Get(name) })
}

func (osKeyring) Set(name, value string) error {
	_, err := keyring.WithTimeout(keyringTimeout, func() (string, error) { return "", keyring.Set(name, value) })
	return err
}

func (osKeyring) Delete(name string) error {
	_, err := keyring.WithTimeout(keyringTimeout, func() (string, error) { return "", keyring.Delete(name) })
	return err
}

func inputEntry(id string) string { return "input/" + id }

// inputValue is config.Env.Input: a value given earlier, from memory, the
// keyring or the store; config.ErrInputNotGiven if there is none.
func (c *Core) inputValue(in config.Input) (string, error) {
	if v, ok := c.inputs.Value(in.ID); ok {
		return v, nil
	}
	var v string
	var err error
	if in.Password {
		v, err = c.opts.Secrets.Get(inputEntry(in.ID))
		if errors.Is(err, keyring.ErrNotFound) {
			return "", config.ErrInputNotGiven
		}
		if errors.Is(err, keyring.ErrUnavailable) {
			// Ask anyway; the answer is then kept in memory only.
			c.log.Warn("reading an input from the keyring", "input", in.ID, "err", err)
			return "", config.ErrInputNotGiven
		}
	} else {
		v, err = c.store.Input(context.Background(), in.ID)
		if errors.Is(err, store.ErrNoInput) {
			return "", config.ErrInputNotGiven
		}
	}
	if err != nil {
		return "", err
	}
	c.inputs.Set(in.ID, v, in.Password)
	return v, nil
}

// redactInputs makes a server's session redact every password input's
// value from what the server says.
func (c *Core) redactInputs(sess *downstream.Session) {
	for _, v := range c.passwordInputs() {
		sess.Redact(v)
	}
}

// passwordInputs are the values of the password inputs given so far, for
// a server's session to redact from its first line on.
func (c *Core) passwordInputs() []string { return c.inputs.Passwords() }

// askInput asks the person for an input through the inbox (once, however
// many servers wait for it) and saves the answer. It returns the outcome:
// accept, decline, cancel or timeout.
func (c *Core) askInput(ctx context.Context, in config.Input, server string) string {
	return c.inputs.Ask(ctx, in.ID, func(ctx context.Context) string { return c.runInputAsk(ctx, in, server) })
}

// runInputAsk is one question for an input (Inputs.Ask runs it once for
// all the servers that wait): it asks the inbox and keeps the answer.
func (c *Core) runInputAsk(ctx context.Context, in config.Input, server string) (outcome string) {
	f := inbox.Field{Name: in.ID, Type: "string", Title: in.Description, Secret: in.Password, Required: true}
	if in.Default != "" {
		f.Default, f.HasDefault = in.Default, true
	}
	for _, o := range in.Options {
		f.Options = append(f.Options, inbox.Option{Value: o})
	}
	msg := in.Description
	if msg == "" {
		msg = fmt.Sprintf("A value for ${input:%s}", in.ID)
	}
	req := inbox.Request{Kind: inbox.KindInput, Server: server, Source: inbox.SourceConfig, Input: in.ID, Message: msg, Mode: "form", Fields: []inbox.Field{f}}
	r := c.inbox.Ask(ctx, req, "", c.inboxTimeout())
	if r.Outcome != store.OutcomeAccept {
		return r.Outcome
	}
	v, _ := r.Reply.Content[in.ID].(string)
	c.inputs.Set(in.ID, v, in.Password)
	var err error
	if in.Password {
		err = c.opts.Secrets.Set(inputEntry(in.ID), v)
	} else {
		err = c.store.SaveInput(context.Background(), in.ID, v, time.Now())
	}
	if err != nil {
		c.log.Warn("saving an input: kept in memory only until mcptray exits", "input", in.ID, "err", err)
	}
	c.requestReload()
	return r.Outcome
}

// ForgetInput clears the value of ${input:ID} from memory, the keyring and
// the store; the entries that use it ask for it again.
func (c *Core) ForgetInput(id string) error {
	if id == "" {
		return errors.New("forgetting an input: the id is empty")
	}
	had := c.inputs.Forget(id)
	var errs []error
	switch err := c.opts.Secrets.Delete(inputEntry(id)); {
	case err == nil:
		had = true
	case !errors.Is(err, keyring.ErrNotFound):
		errs = append(errs, fmt.Errorf("keyring: %w", err))
	}
	if ok, err := c.store.DeleteInput(context.Background(), id); err != nil {
		errs = append(errs, err)
	} else if ok {
		had = true
	}
	if had {
		c.requestReload()
	}
	if len(errs) > 0 {
		return fmt.Errorf("forgetting ${input:%s}: %w", id, errors.Join(errs...))
	}
	if !had {
		return fmt.Errorf("forgetting ${input:%s}: %w", id, inbox.ErrNoInputValue)
	}
	return nil
}

// requestReload asks the watcher to re-read mcp.json now (values of
// inputs changed).
func (c *Core) requestReload() {
	select {
	case c.reloadReq <- struct{}{}:
	default:
	}
}

// waitInput is a server's run while its entry waits for an input: state
// waiting-input, the question in the inbox, then (once answered) a reload
// brings the resolved spec. Declined or timed out: state error until a
// restart asks again.
func (s *server) waitInput(ctx context.Context, spec config.Server, in config.Input) {
	s.log.Write(logLifecycle, fmt.Sprintf("waiting for ${input:%s} in the inbox", in.ID))
	s.setState(control.StateWaitingInput, spec.Err.Error())
	outcome := s.core.askInput(ctx, in, s.name)
	if ctx.Err() != nil {
		return
	}
	if outcome != store.OutcomeAccept {
		why := fmt.Sprintf("${input:%s} was not given (%s); `mcptray restart %s` asks again", in.ID, outcomeWords(outcome), s.name)
		s.log.Write(logLifecycle, why)
		s.setState(control.StateError, why)
	}
	<-ctx.Done()
}

func outcomeWords(outcome string) string {
	switch outcome {
	case store.OutcomeDecline:
		return "declined"
	case store.OutcomeTimeout:
		return "no answer in time"
	}
	return "cancelled"
}

// ForgetInputInData forgets the value of ${input:ID} when no instance
// runs on data: the keyring entry input/ID and the store's row.
func ForgetInputInData(data, id string) error {
	if id == "" {
		return errors.New("forgetting an input: the id is empty")
	}
	st, err := store.Open(dbPath(data))
	if err != nil {
		return err
	}
	defer st.Close()
	had := false
	var errs []error
	switch err := (osKeyring{}).Delete(inputEntry(id)); {
	case err == nil:
		had = true
	case !errors.Is(err, keyring.ErrNotFound):
		errs = append(errs, fmt.Errorf("keyring: %w", err))
	}
	if ok, err := st.DeleteInput(context.Background(), id); err != nil {
		errs = append(errs, err)
	} else if ok {
		had = true
	}
	switch {
	case len(errs) > 0:
		return fmt.Errorf("forgetting ${input:%s}: %w", id, errors.Join(errs...))
	case !had:
		return fmt.Errorf("forgetting ${input:%s}: %w", id, inbox.ErrNoInputValue)
	}
	return nil
}
