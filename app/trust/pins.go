package trust

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/store"
)

// Pinned tool descriptions (DESIGN.md §14): the first time a server's tool
// is seen, a hash of its name, description, input schema and annotations
// is stored (store.ToolPin). When a later listing changes a pinned tool,
// the gateway holds the new version back (mcp.GatewayOptions.CheckTools): not
// listed, its calls refused with isError text saying why. The inbox shows
// the change (kind tool-change); a yes pins the new version and lets the
// tool go. Tools that were added are new, not changed: pinned at once.
// x-mcptray.pinTools: false turns it off for an entry.

// Pins are the pinned tools. Their methods run on the gateway's
// goroutines (CheckTools) and on the inbox's answers.
type Pins struct {
	o       Options
	mu      sync.Mutex
	servers map[string]*serverPins // guarded by mu: loaded from the store on first use
}

// NewPins returns the pins, read from o.Store on first use of each server.
// It uses o.Store, o.Log, o.Ask, o.Timeout, o.Lifecycle and o.Released.
func NewPins(o Options) *Pins {
	return &Pins{o: o, servers: map[string]*serverPins{}}
}

// serverPins are one server's pins and held tools.
type serverPins struct {
	pins map[string]store.ToolPin // by tool
	held map[string]*heldTool     // by tool: a new version waiting for the person
}

// heldTool is a changed tool held back.
type heldTool struct {
	pin    store.ToolPin       // the new version, pinned once approved
	sess   *downstream.Session // the session that listed it: a new one asks again
	asking bool                // a request is open
	stop   context.CancelFunc  // closes the open request
}

// pinnedTool is what a pin hashes and keeps.
type pinnedTool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	InputSchema any    `json:"inputSchema,omitempty"`
	Annotations any    `json:"annotations,omitempty"`
}

// pinOf is the pin of a tool as listed now.
func pinOf(t *downstream.Tool, at time.Time) store.ToolPin {
	pt := pinnedTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
	if t.Annotations != nil {
		pt.Annotations = t.Annotations
	}
	b, err := json.Marshal(pt)
	if err != nil {
		b, _ = json.Marshal(pinnedTool{Name: t.Name, Description: t.Description})
	}
	// Marshal sorts map keys: equal tools give equal bytes. The hash goes
	// over a re-encoding through any, so that the SDK's struct types and a
	// decoded map hash alike.
	var v any
	json.Unmarshal(b, &v)
	canon, _ := json.Marshal(v)
	sum := sha256.Sum256(canon)
	return store.ToolPin{Tool: t.Name, Hash: hex.EncodeToString(sum[:]), Pinned: canon, Updated: at}
}

// Check is the gateway's CheckTools for a server whose pins are on: it
// pins the tools seen for the first time and returns the changed ones to
// hold back.
func (p *Pins) Check(server string, sess *downstream.Session, tools []*downstream.Tool) map[string]string {
	now := time.Now().UTC()
	p.mu.Lock()
	sp := p.load(server)
	var added []store.ToolPin
	var ask []*heldTool
	for _, t := range tools {
		np := pinOf(t, now)
		old, ok := sp.pins[t.Name]
		switch {
		case !ok:
			sp.pins[t.Name] = np
			added = append(added, np)
		case old.Hash == np.Hash:
			if h := sp.held[t.Name]; h != nil { // back to what was pinned
				h.stop()
				delete(sp.held, t.Name)
			}
		default:
			h := sp.held[t.Name]
			if h != nil && h.pin.Hash == np.Hash && (h.asking || h.sess == sess) {
				continue // asked already
			}
			if h != nil {
				h.stop()
			}
			h = &heldTool{pin: np, sess: sess, asking: true, stop: func() {}}
			sp.held[t.Name] = h
			ask = append(ask, h)
		}
	}
	held := sp.heldWhy()
	p.mu.Unlock()

	if len(added) > 0 {
		if err := p.o.Store.PinTools(context.Background(), server, added); err != nil {
			p.o.Log.Warn("pinning tools: they are pinned until mcptray exits", "server", server, "err", err)
		}
	}
	for _, h := range ask {
		p.askToolChange(server, sess, h)
	}
	return held
}

// heldWhy is the held tools with why, for the gateway. Called with
// Pins.mu held.
func (sp *serverPins) heldWhy() map[string]string {
	if len(sp.held) == 0 {
		return nil
	}
	out := make(map[string]string, len(sp.held))
	for name := range sp.held {
		out[name] = "its description, input schema or annotations changed since they were pinned"
	}
	return out
}

// load returns server's pins, reading them from the store the first time.
// Called with p.mu held.
func (p *Pins) load(server string) *serverPins {
	if sp := p.servers[server]; sp != nil {
		return sp
	}
	stored, err := p.o.Store.ToolPins(context.Background(), server)
	if err != nil {
		p.o.Log.Warn("reading pinned tools", "server", server, "err", err)
		stored = map[string]store.ToolPin{}
	}
	sp := &serverPins{pins: stored, held: map[string]*heldTool{}}
	p.servers[server] = sp
	return sp
}

// Forget drops server's held tools (pinTools turned off, or the entry
// removed); its pins stay in the store.
func (p *Pins) Forget(server string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if sp := p.servers[server]; sp != nil {
		for _, h := range sp.held {
			h.stop()
		}
		delete(p.servers, server)
	}
}

// Held is server's held tools, with why, for the Tools tab (app.ToolInfo).
func (p *Pins) Held(server string) map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if sp := p.servers[server]; sp != nil {
		return sp.heldWhy()
	}
	return nil
}

// askToolChange asks the person about a changed tool, in a goroutine: a
// yes pins the new version and lets the tool go; a no, or no answer,
// keeps it held back until the server lists it again in a new session.
func (p *Pins) askToolChange(server string, sess *downstream.Session, h *heldTool) {
	p.mu.Lock()
	sp := p.servers[server]
	if sp == nil || sp.held[h.pin.Tool] != h { // superseded meanwhile
		p.mu.Unlock()
		return
	}
	old := sp.pins[h.pin.Tool]
	ctx, cancel := context.WithCancel(context.Background())
	h.stop = cancel
	p.mu.Unlock()
	tc := toolChange(h.pin.Tool, old.Pinned, h.pin.Pinned)
	tc.OldDescription, tc.NewDescription = sess.RedactText(tc.OldDescription), sess.RedactText(tc.NewDescription)
	for i, l := range tc.Changes {
		tc.Changes[i] = sess.RedactText(l)
	}
	req := inbox.Request{Kind: inbox.KindToolChange, Server: server, Tool: h.pin.Tool, Source: inbox.SourceMcptray, Mode: "form", Confirm: true,
		Message:    fmt.Sprintf("The tool %s of %s changed since you last saw it. mcptray holds it back: assistants neither see nor call it until you accept the change.", h.pin.Tool, server),
		ToolChange: tc}
	p.o.Log.Warn("a pinned tool changed: held back until the person approves", "server", server, "tool", h.pin.Tool)
	p.o.Lifecycle(server, "tool "+h.pin.Tool+" changed its description: held back until you approve it (mcptray inbox)")
	go func() {
		defer cancel()
		r := p.o.Ask.Ask(ctx, req, "", p.o.Timeout())
		p.mu.Lock()
		sp := p.servers[server]
		current := sp != nil && sp.held[h.pin.Tool] == h
		if current {
			h.asking = false
		}
		if !current || r.Outcome != inbox.ActionAccept {
			p.mu.Unlock()
			return
		}
		h.pin.Updated = time.Now().UTC()
		sp.pins[h.pin.Tool] = h.pin
		delete(sp.held, h.pin.Tool)
		held := sp.heldWhy()
		p.mu.Unlock()
		if err := p.o.Store.PinTools(context.Background(), server, []store.ToolPin{h.pin}); err != nil {
			p.o.Log.Warn("pinning an approved tool: pinned until mcptray exits", "server", server, "err", err)
		}
		p.o.Lifecycle(server, "tool "+h.pin.Tool+": the change was approved and pinned")
		p.o.Released(server, held)
	}()
}

// maxChanges bounds the lines of a tool change.
const maxChanges = 40

// toolChange compares two pinned versions of a tool.
func toolChange(tool string, oldJSON, newJSON []byte) *inbox.ToolChange {
	var o, n map[string]any
	json.Unmarshal(oldJSON, &o)
	json.Unmarshal(newJSON, &n)
	tc := &inbox.ToolChange{Tool: tool}
	tc.OldDescription, _ = o["description"].(string)
	tc.NewDescription, _ = n["description"].(string)
	delete(o, "description")
	delete(n, "description")
	diffJSON("", o, n, &tc.Changes)
	if len(tc.Changes) > maxChanges {
		more := len(tc.Changes) - maxChanges
		tc.Changes = append(tc.Changes[:maxChanges], fmt.Sprintf("… and %d more changes", more))
	}
	return tc
}

// diffJSON appends one line per difference between a and b under path.
func diffJSON(path string, a, b any, out *[]string) {
	if reflect.DeepEqual(a, b) {
		return
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := slices.Collect(maps.Keys(am))
		for k := range bm {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			av, ain := am[k]
			bv, bin := bm[k]
			switch {
			case !ain:
				*out = append(*out, "+ "+p+": "+short(bv))
			case !bin:
				*out = append(*out, "- "+p+": "+short(av))
			default:
				diffJSON(p, av, bv, out)
			}
		}
		return
	}
	*out = append(*out, fmt.Sprintf("~ %s: %s → %s", path, short(a), short(b)))
}

// short is v as compact JSON, cut to a line.
func short(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return cut(strings.TrimSpace(b.String()), 160)
}
