package calendar

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/servers/google"
	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
)

// The test binary re-run as `serve gcal` on stdio (TestMain): the fake's
// URL is MCPTRAY_GOOGLE_API_URL, the account and its access token come
// in these variables.
const (
	childEnv      = "GCAL_TEST_CHILD"
	childTokenEnv = "GCAL_TEST_TOKEN"
	childDataEnv  = "GCAL_TEST_DATA"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "serve" {
		os.Exit(serveChild())
	}
	os.Exit(m.Run())
}

// staticTokenAccounts is one account with a fixed access token.
type staticTokenAccounts struct{ email, token string }

func (a staticTokenAccounts) Emails() ([]string, error) { return []string{a.email}, nil }

func (a staticTokenAccounts) Client(context.Context, string) (*http.Client, error) {
	return &http.Client{Transport: bearerTransport(a.token)}, nil
}

var _ google.AccountSource = staticTokenAccounts{}

func serveChild() int {
	s, err := NewFromConfig(Config{Accounts: staticTokenAccounts{ada, os.Getenv(childTokenEnv)}, DataDir: os.Getenv(childDataEnv),
		CalendarPoll: "1s", Version: "test"})
	if err == nil {
		err = s.ServeStdio(context.Background())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

// TestServeStdioEmitsEventsBesideAnswers: `serve gcal` on stdio answers
// tool calls and writes event/new_calendar_event for an event made on
// another device, each a whole JSON-RPC line on stdout.
func TestServeStdioEmitsEventsBesideAnswers(t *testing.T) {
	t.Parallel()
	fake := googletest.New()
	defer fake.Close()
	exe, err := os.Executable()
	must(t, err)
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"=serve", google.APIURLEnv+"="+fake.URL, childDataEnv+"="+t.TempDir(),
		childTokenEnv+"="+fake.IssueAccessToken(ada, []string{googletest.CalendarScope}, time.Hour))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	must(t, err)
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	defer cmd.Wait()
	defer in.Close()

	lines := make(chan map[string]any)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("a broken line on stdout %q: %v", sc.Text(), err)
				continue
			}
			lines <- m
		}
	}()
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	testkit.WaitForWithin(t, time.Minute, "the poller's first sync and its look-ahead", func() bool { return fake.CalendarRequests(eventsList) >= 2 })
	_, err = fake.AddEvent(ada, "primary", timed("From the phone", tomorrowAt(berlin(t), 9, 0), time.Hour, "Europe/Berlin"))
	must(t, err)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_calendars","arguments":{}}}`)

	var answered, announced bool
	timeout := time.After(60 * time.Second)
	for !answered || !announced {
		select {
		case m, ok := <-lines:
			if !ok {
				t.Fatal("the server closed stdout")
			}
			switch {
			case m["id"] == float64(2):
				answered = true
				if b, _ := json.Marshal(m); !strings.Contains(string(b), ada) {
					t.Errorf("list_calendars answered %s", b)
				}
			case m["method"] == MethodNewEvent:
				announced = true
				p, _ := m["params"].(map[string]any)
				if p["summary"] != "From the phone" || p["account"] != ada || p["calendar_id"] != ada {
					t.Errorf("notification %v", m)
				}
			}
		case <-timeout:
			t.Fatalf("answered %v, announced %v after 60 s", answered, announced)
		}
	}
}
