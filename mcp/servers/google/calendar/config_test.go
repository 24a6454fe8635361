package calendar

import (
	"strings"
	"testing"
	"time"
)

func TestNewFromConfig(t *testing.T) {
	t.Parallel()
	acc := &fakeTokenAccounts{}
	s, err := NewFromConfig(Config{Accounts: acc})
	if err != nil || s.opts.Poll != DefaultPoll || s.opts.Reminder != DefaultReminder {
		t.Fatalf("defaults: %v %+v", err, s.opts)
	}
	s, err = NewFromConfig(Config{Accounts: acc, CalendarPoll: "30s", CalendarReminder: "5m", Account: bob})
	if err != nil || s.opts.Poll != 30*time.Second || s.opts.Reminder != 5*time.Minute || s.opts.Account != bob {
		t.Fatalf("set: %v %+v", err, s.opts)
	}
	for v, want := range map[string]string{"5x": `calendarPoll "5x" is not a duration`, "500ms": "too short", "-1m": "not a duration"} {
		if _, err := NewFromConfig(Config{Accounts: acc, CalendarPoll: v}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("calendarPoll %q: %v, want %q", v, err, want)
		}
	}
	if _, err := NewFromConfig(Config{Accounts: acc, CalendarReminder: "soon"}); err == nil || !strings.Contains(err.Error(), "calendarReminder") {
		t.Errorf("calendarReminder soon: %v", err)
	}
	if _, err := NewFromConfig(Config{}); err == nil {
		t.Error("no accounts: no error")
	}
}
