package downstream

import (
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Values a person typed into the inbox for a secret field are taken out of
// everything that server says for the rest of its session (DESIGN §7): tool
// results, _meta, progress, log lines, events, resources, prompts,
// completions, sampling and elicitation requests, lists and errors. A
// server that echoes a password leaks it neither to the assistant nor to
// disk.
//
// JSON is matched by value, not by spelling: each string is compared
// decoded, so every escape a JSON encoder may write (\/, \u00f6 or
// \u00F6, every character as \uXXXX, any mix) is caught. A secret split
// across adjacent text blocks of one array (content blocks, resource
// contents, prompt and sampling messages) is caught on the joined text,
// and each block's part of it is replaced.

// Redact adds a secret the person gave for this server some other way (a
// ${input:ID} password in its environment): from now on it is replaced by
// "[redacted]" in the server's results and log lines, like the secrets
// typed into the inbox.
func (s *Session) Redact(secret string) { s.addSecret(secret) }

// addSecret adds a value to the session's redactions.
func (s *Session) addSecret(v string) {
	for {
		old := s.secrets.Load()
		r := old.With(v)
		if r == old || s.secrets.CompareAndSwap(old, r) {
			return
		}
	}
}

// RedactJSON returns the JSON text b with the session's secrets replaced;
// b itself when there are none (the common case costs one atomic load) or
// none occurs.
func (s *Session) RedactJSON(b []byte) []byte {
	r := s.secrets.Load()
	if r == nil {
		return b
	}
	out, _ := r.RedactJSON(b)
	return out
}

// RedactText is redactJSON for a log line or another decoded string: the
// secret as typed, and in any JSON string the line holds.
func (s *Session) RedactText(line string) string {
	r := s.secrets.Load()
	if r == nil {
		return line
	}
	return r.RedactText(line)
}

// RedactValue returns v with the session's secrets replaced in every
// string, through its JSON form; v itself when there are none or none
// occurs. v must survive a JSON round trip (the SDK's types do: that is
// how they travel).
func RedactValue[T any](s *Session, v *T) (*T, error) {
	r := s.secrets.Load()
	if r == nil || v == nil {
		return v, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "redacting the server's answer: " + err.Error()}
	}
	rb, changed := r.RedactJSON(b)
	if !changed {
		return v, nil
	}
	out := new(T)
	if err := json.Unmarshal(rb, out); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "redacting the server's answer: " + err.Error()}
	}
	return out, nil
}

// RedactedAnswer is a server's answer (res, err) with the session's
// secrets replaced, for the SDK's handlers.
func RedactedAnswer[T any](s *Session, res *T, err error) (*T, error) {
	if err != nil {
		return nil, s.RedactErr(err)
	}
	return RedactValue(s, res)
}

// RedactErr returns err with the session's secrets replaced in its
// message and data; err itself when nothing changes. A JSON-RPC error
// keeps its code.
func (s *Session) RedactErr(err error) error {
	r := s.secrets.Load()
	if r == nil || err == nil {
		return err
	}
	msg := err.Error()
	rmsg := r.RedactText(msg)
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		if rmsg == msg {
			return err
		}
		return errors.New(rmsg)
	}
	var data json.RawMessage
	changed := rmsg != msg
	if we == err && len(we.Data) > 0 { // the SDK sends the data of an unwrapped error only
		var dc bool
		data, dc = r.RedactJSON(we.Data)
		changed = changed || dc
	}
	if !changed {
		return err
	}
	return &jsonrpc.Error{Code: we.Code, Message: rmsg, Data: data}
}
