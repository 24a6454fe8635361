package store

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestElicitationsAudit(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	t0 := time.Date(2026, 7, 3, 12, 0, 0, 0, time.UTC)
	first := Elicitation{Server: "ssh", Tool: "exec", Mode: "form", Message: "sudo password for prod",
		Fields: []string{"password"}, Outcome: OutcomeAccept, ClosedBy: "cli", Created: t0, Closed: t0.Add(3 * time.Second)}
	if err := s.AddElicitations(ctx, []Elicitation{first}); err != nil {
		t.Fatal(err)
	}
	second := Elicitation{Server: "web", Mode: "url", Message: "sign in", Outcome: OutcomeTimeout, ClosedBy: "deadline",
		Created: t0.Add(time.Minute), Closed: t0.Add(6 * time.Minute)}
	if err := s.AddElicitations(ctx, []Elicitation{second}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Elicitations(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Server != "web" || got[1].Server != "ssh" {
		t.Fatalf("rows (newest first): %+v", got)
	}
	first.ID, second.ID, second.Fields = got[1].ID, got[0].ID, []string{}
	if !reflect.DeepEqual(got[1], first) || !reflect.DeepEqual(got[0], second) {
		t.Errorf("round trip:\n%+v\n%+v", got, []Elicitation{second, first})
	}
	if one, _ := s.Elicitations(ctx, 1); len(one) != 1 {
		t.Errorf("limit 1: %d rows", len(one))
	}
}

func TestElicitationsRefuseBadRows(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	now := time.Now()
	for _, tc := range []struct {
		e    Elicitation
		want string
	}{
		{Elicitation{Outcome: OutcomeAccept, Created: now, Closed: now}, "recording an elicitation: server name is empty"},
		{Elicitation{Server: "a", Outcome: OutcomeAccept}, "recording an elicitation of a: a time is zero"},
		{Elicitation{Server: "a", Outcome: "maybe", Created: now, Closed: now}, `recording an elicitation of a: outcome "maybe" is not accept, decline, cancel or timeout`},
	} {
		// One bad row refuses the batch: none of it is stored.
		good := Elicitation{Server: "ok", Mode: "form", Outcome: OutcomeCancel, Created: now, Closed: now}
		if err := s.AddElicitations(ctx, []Elicitation{good, tc.e}); err == nil || err.Error() != tc.want {
			t.Errorf("AddElicitations(%+v) = %v, want %q", tc.e, err, tc.want)
		}
	}
	if got, _ := s.Elicitations(ctx, 0); len(got) != 0 {
		t.Errorf("%d rows stored from refused batches", len(got))
	}
}

// A batch of any size arrives whole and in order, across the statements
// of elicitationsPerInsert rows.
func TestAddElicitationsAcrossStatements(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 7, 3, 12, 0, 0, 0, time.UTC)
	for _, n := range []int{1, elicitationsPerInsert - 1, elicitationsPerInsert, elicitationsPerInsert + 1, 2*elicitationsPerInsert + 3, 1031} {
		s, _ := openTemp(t)
		es := make([]Elicitation, n)
		for i := range es {
			es[i] = Elicitation{Server: "s" + strconv.Itoa(i%3), Tool: "t" + strconv.Itoa(i), Mode: []string{"form", "url", "input"}[i%3],
				Message: "request " + strconv.Itoa(i), Fields: []string{"f" + strconv.Itoa(i)},
				Outcome: []string{OutcomeAccept, OutcomeDecline, OutcomeCancel, OutcomeTimeout}[i%4], ClosedBy: "by" + strconv.Itoa(i),
				Created: t0.Add(time.Duration(i) * time.Millisecond), Closed: t0.Add(time.Duration(i)*time.Millisecond + time.Second)}
		}
		if err := s.AddElicitations(ctx, es); err != nil {
			t.Fatalf("%d rows: %v", n, err)
		}
		got, err := s.Elicitations(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Fatalf("%d rows stored as %d", n, len(got))
		}
		for i, g := range got { // newest first
			w := es[n-1-i]
			w.ID = g.ID
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("%d rows: row %d = %+v, want %+v", n, i, g, w)
			}
		}
	}
}

func TestInputs(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	if _, err := s.Input(ctx, "k"); !errors.Is(err, ErrNoInput) {
		t.Errorf("missing input: %v", err)
	}
	if err := s.SaveInput(ctx, "k", "v1", time.Now()); err != nil {
		t.Fatal(err)
	}
	s.SaveInput(ctx, "k", "v2", time.Now())
	if v, err := s.Input(ctx, "k"); err != nil || v != "v2" {
		t.Errorf("Input = %q, %v", v, err)
	}
	if ok, err := s.DeleteInput(ctx, "k"); !ok || err != nil {
		t.Errorf("DeleteInput = %v, %v", ok, err)
	}
	if ok, _ := s.DeleteInput(ctx, "k"); ok {
		t.Error("second DeleteInput found a value")
	}
	if err := s.SaveInput(ctx, "", "v", time.Now()); err == nil || !strings.Contains(err.Error(), "id is empty") {
		t.Errorf("empty id: %v", err)
	}
}
