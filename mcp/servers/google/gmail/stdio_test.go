package gmail

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

	"github.com/mcptray/mcptray/mcp/servers/google"
	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
)

// The test binary re-run as `serve gmail` on stdio (TestMain): the
// fake's URL is MCPTRAY_GOOGLE_API_URL, the account's access token and
// the data dir come in these variables.
const (
	childEnv      = "GMAIL_TEST_CHILD"
	childTokenEnv = "GMAIL_TEST_TOKEN"
	childDataEnv  = "GMAIL_TEST_DATA"
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
		GmailPoll: "1s", GmailSend: "drafts-only", Version: "test"})
	if err == nil {
		err = s.ServeStdio(context.Background())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

// TestServeStdio: the server on real stdio answers tools/list (without
// send under drafts-only) and a search, each a whole JSON-RPC line, and
// ends when stdin closes.
func TestServeStdio(t *testing.T) {
	fake := googletest.New()
	defer fake.Close()
	if _, err := fake.DeliverMessage(ada, []byte(strings.ReplaceAll(lunchMail, "\n", "\r\n"))); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	must(t, err)
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"=serve", google.APIURLEnv+"="+fake.URL, childDataEnv+"="+t.TempDir(),
		childTokenEnv+"="+fake.IssueAccessToken(ada, []string{googletest.GmailModifyScope}, time.Hour))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	must(t, err)
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
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
	answer := func(id float64) map[string]any {
		t.Helper()
		timeout := time.After(60 * time.Second)
		for {
			select {
			case m, ok := <-lines:
				if !ok {
					t.Fatal("the server closed stdout")
				}
				if m["id"] == id {
					return m
				}
			case <-timeout:
				t.Fatalf("no answer to %v in 60 s", id)
			}
		}
	}
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	answer(1)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if b, _ := json.Marshal(answer(2)); !strings.Contains(string(b), `"name":"create_draft"`) || strings.Contains(string(b), `"name":"send"`) {
		t.Errorf("tools/list under drafts-only: %s", b)
	}
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"lunch"}}}`)
	if b, _ := json.Marshal(answer(3)); !strings.Contains(string(b), "Lunch on Friday?") {
		t.Errorf("search answered %s", b)
	}
	in.Close()
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the server ended with %v after stdin closed", err)
	}
}
