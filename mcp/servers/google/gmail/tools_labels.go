package gmail

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/mcp/servers/google"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	gm "google.golang.org/api/gmail/v1"
)

// Label is a Gmail label.
type Label struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// labelInfo is an account's labels as last read.
type labelInfo struct {
	list []Label
	at   time.Time
}

// labelsTTL is how long an account's labels are kept before they are
// read again.
const labelsTTL = 5 * time.Minute

// labelList returns the account's labels, read again when older than
// labelsTTL or when fresh.
func (s *Server) labelList(ctx context.Context, req *sdk.CallToolRequest, email *string, fresh bool) ([]Label, error) {
	s.mu.Lock()
	li, ok := s.labels[*email]
	s.mu.Unlock()
	if ok && !fresh && s.opts.Now().Sub(li.at) < labelsTTL {
		return li.list, nil
	}
	var res *gm.ListLabelsResponse
	err := s.api(ctx, req, email, func(svc *gm.Service) (err error) {
		res, err = svc.Users.Labels.List("me").Context(ctx).Do()
		return err
	})
	if err != nil {
		return nil, explain(err, "listing the labels of "+*email)
	}
	list := make([]Label, 0, len(res.Labels))
	for _, l := range res.Labels {
		list = append(list, Label{ID: l.Id, Name: l.Name, Type: l.Type})
	}
	slices.SortStableFunc(list, func(a, b Label) int {
		if a.Type != b.Type {
			return strings.Compare(a.Type, b.Type) // system before user
		}
		return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	})
	s.mu.Lock()
	s.labels[*email] = labelInfo{list: list, at: s.opts.Now()}
	s.mu.Unlock()
	return list, nil
}

// labelNames returns a function naming label ids for the results; ids
// stay ids when the labels cannot be read.
func (s *Server) labelNames(ctx context.Context, req *sdk.CallToolRequest, email string) func([]string) []string {
	list, err := s.labelList(ctx, req, &email, false)
	if err != nil {
		s.log.Warn("reading the labels", "account", email, "err", err)
	}
	byID := map[string]string{}
	for _, l := range list {
		byID[l.ID] = l.Name
	}
	return func(ids []string) []string {
		out := make([]string, 0, len(ids))
		for _, id := range ids {
			if n, ok := byID[id]; ok {
				out = append(out, n)
			} else {
				out = append(out, id)
			}
		}
		return out
	}
}

// labelIDs resolves label names or ids (either, case-insensitive) to ids,
// reading the labels again once when one is not found.
func (s *Server) labelIDs(ctx context.Context, req *sdk.CallToolRequest, email *string, field string, in []string) ([]string, error) {
	if len(in) == 0 {
		return nil, nil
	}
	var out []string
	fresh := false
	for _, want := range in {
		for {
			list, err := s.labelList(ctx, req, email, fresh)
			if err != nil {
				return nil, err
			}
			i := slices.IndexFunc(list, func(l Label) bool { return l.ID == want || strings.EqualFold(l.Name, want) })
			if i >= 0 {
				out = append(out, list[i].ID)
				break
			}
			if fresh {
				return nil, fmt.Errorf("%s: there is no label %q in %s (list_labels shows them; create_label makes one)", field, want, *email)
			}
			fresh = true
		}
	}
	return out, nil
}

type listLabelsOut struct {
	Labels []Label `json:"labels"`
}

func (s *Server) listLabelsTool(ctx context.Context, req *sdk.CallToolRequest, in accountArg) (*sdk.CallToolResult, listLabelsOut, error) {
	email, err := s.account(in.Account)
	if err != nil {
		return nil, listLabelsOut{}, err
	}
	list, err := s.labelList(ctx, req, &email, true)
	if err != nil {
		return nil, listLabelsOut{}, err
	}
	var user, system []string
	for _, l := range list {
		if l.Type == "system" {
			system = append(system, l.Name)
		} else {
			user = append(user, fmt.Sprintf("%s [%s]", l.Name, l.ID))
		}
	}
	return text(fmt.Sprintf("%d labels of %s.\nSystem: %s\nUser: %s", len(list), email, strings.Join(system, ", "), strings.Join(user, ", "))),
		listLabelsOut{Labels: list}, nil
}

type createLabelIn struct {
	accountArg
	Name string `json:"name"`
}

type createLabelOut struct {
	Label   Label `json:"label"`
	Created bool  `json:"created"`
}

func (s *Server) createLabelTool(ctx context.Context, req *sdk.CallToolRequest, in createLabelIn) (*sdk.CallToolResult, createLabelOut, error) {
	var zero createLabelOut
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return nil, zero, errors.New("name is required")
	}
	email, err := s.account(in.Account)
	if err != nil {
		return nil, zero, err
	}
	list, err := s.labelList(ctx, req, &email, true)
	if err != nil {
		return nil, zero, err
	}
	if i := slices.IndexFunc(list, func(l Label) bool { return strings.EqualFold(l.Name, name) }); i >= 0 {
		return text(fmt.Sprintf("Label %s [%s] exists already.", list[i].Name, list[i].ID)), createLabelOut{Label: list[i]}, nil
	}
	var l *gm.Label
	err = s.api(ctx, req, &email, func(svc *gm.Service) (err error) {
		l, err = svc.Users.Labels.Create("me", &gm.Label{Name: name, LabelListVisibility: "labelShow", MessageListVisibility: "show"}).Context(ctx).Do()
		return err
	})
	if err != nil {
		return nil, zero, explain(err, "creating label "+name)
	}
	s.mu.Lock()
	delete(s.labels, email)
	s.mu.Unlock()
	out := createLabelOut{Label: Label{ID: l.Id, Name: l.Name, Type: orUser(l.Type)}, Created: true}
	return text(fmt.Sprintf("Created label %s [%s].", out.Label.Name, out.Label.ID)), out, nil
}

func orUser(t string) string {
	if t == "" {
		return "user"
	}
	return t
}

// maxModify is how many messages one batchModify takes.
const maxModify = 1000

type modifyIn struct {
	accountArg
	IDs          []string `json:"ids" jsonschema:"message ids"`
	AddLabels    []string `json:"add_labels,omitempty" jsonschema:"names or ids"`
	RemoveLabels []string `json:"remove_labels,omitempty" jsonschema:"names or ids"`
	Read         *bool    `json:"read,omitempty" jsonschema:"false: unread"`
	Archive      bool     `json:"archive,omitempty"`
	Star         *bool    `json:"star,omitempty" jsonschema:"false: unstar"`
}

type modifyOut struct {
	Modified int      `json:"modified"`
	Added    []string `json:"added"`
	Removed  []string `json:"removed"`
}

// checkIDs checks a list of message ids: some, at most limit, none empty.
func checkIDs(ids []string, limit int) error {
	if len(ids) == 0 {
		return errors.New("ids is required: message ids from search")
	}
	if len(ids) > limit {
		return fmt.Errorf("ids: %d messages, at most %d at once", len(ids), limit)
	}
	if slices.Contains(ids, "") {
		return errors.New("ids: an empty id")
	}
	return nil
}

func (s *Server) modifyTool(ctx context.Context, req *sdk.CallToolRequest, in modifyIn) (*sdk.CallToolResult, modifyOut, error) {
	var zero modifyOut
	if err := checkIDs(in.IDs, maxModify); err != nil {
		return nil, zero, err
	}
	email, err := s.account(in.Account)
	if err != nil {
		return nil, zero, err
	}
	add, err := s.labelIDs(ctx, req, &email, "add_labels", in.AddLabels)
	if err != nil {
		return nil, zero, err
	}
	remove, err := s.labelIDs(ctx, req, &email, "remove_labels", in.RemoveLabels)
	if err != nil {
		return nil, zero, err
	}
	flag := func(on *bool, label string) {
		switch {
		case on == nil:
		case *on:
			add = append(add, label)
		default:
			remove = append(remove, label)
		}
	}
	if in.Read != nil {
		unread := !*in.Read
		flag(&unread, "UNREAD")
	}
	flag(in.Star, "STARRED")
	if in.Archive {
		remove = append(remove, "INBOX")
	}
	add, remove = dedupe(add), dedupe(remove)
	for _, l := range add {
		if slices.Contains(remove, l) {
			return nil, zero, fmt.Errorf("label %s would be both added and removed", l)
		}
	}
	if len(add) == 0 && len(remove) == 0 {
		return nil, zero, errors.New("nothing to change: give add_labels, remove_labels, read, archive or star")
	}
	err = s.api(ctx, req, &email, func(svc *gm.Service) error {
		return svc.Users.Messages.BatchModify("me", &gm.BatchModifyMessagesRequest{Ids: in.IDs, AddLabelIds: add, RemoveLabelIds: remove}).Context(ctx).Do()
	})
	if err != nil {
		return nil, zero, explain(err, fmt.Sprintf("changing %d messages", len(in.IDs)))
	}
	out := modifyOut{Modified: len(in.IDs), Added: orEmpty(add), Removed: orEmpty(remove)}
	return text(fmt.Sprintf("Changed %d messages: added %s, removed %s.", out.Modified, listText(add), listText(remove))), out, nil
}

func dedupe(list []string) []string {
	var out []string
	for _, x := range list {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func orEmpty(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

func listText(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

type trashIn struct {
	accountArg
	IDs []string `json:"ids" jsonschema:"message ids"`
}

type trashOut struct {
	Trashed []string `json:"trashed"`
	Failed  []string `json:"failed,omitempty" jsonschema:"id: why"`
}

func (s *Server) trashTool(ctx context.Context, req *sdk.CallToolRequest, in trashIn) (*sdk.CallToolResult, trashOut, error) {
	var zero trashOut
	if err := checkIDs(in.IDs, maxModify); err != nil {
		return nil, zero, err
	}
	email, err := s.account(in.Account)
	if err != nil {
		return nil, zero, err
	}
	trash := func(svc *gm.Service, id string) error {
		_, err := svc.Users.Messages.Trash("me", id).Context(ctx).Do()
		return err
	}
	// The first alone (it may sign in), the rest a few at a time.
	errs := make([]error, len(in.IDs))
	errs[0] = s.api(ctx, req, &email, func(svc *gm.Service) error { return trash(svc, in.IDs[0]) })
	if errs[0] != nil && google.StatusCode(errs[0]) == 0 {
		return nil, zero, explain(errs[0], "trashing "+in.IDs[0]) // Google did not answer (sign-in, network)
	}
	sem := make(chan struct{}, fetchers)
	var wg sync.WaitGroup
	for i := 1; i < len(in.IDs); i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = s.try(ctx, email, func(svc *gm.Service) error { return trash(svc, in.IDs[i]) })
		}()
	}
	wg.Wait()
	out := trashOut{Trashed: []string{}}
	for i, id := range in.IDs {
		switch {
		case errs[i] == nil:
			out.Trashed = append(out.Trashed, id)
		case google.StatusCode(errs[i]) == 404 || google.StatusCode(errs[i]) == 400:
			out.Failed = append(out.Failed, id+": no such message")
		default:
			out.Failed = append(out.Failed, id+": "+explain(errs[i], "trashing").Error())
		}
	}
	if len(out.Trashed) == 0 {
		return nil, zero, fmt.Errorf("nothing was trashed: %s", strings.Join(out.Failed, "; "))
	}
	msg := fmt.Sprintf("Moved %d messages to the trash.", len(out.Trashed))
	if len(out.Failed) > 0 {
		msg += " Not trashed: " + strings.Join(out.Failed, "; ")
	}
	return text(msg), out, nil
}
