package depcheck_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// What each executable links (not its tests): mcptray — the tray build and
// the headless one — links no Google API client, so neither gRPC,
// protobuf, OpenTelemetry nor Google's cloud auth (each costs the daemon
// resident memory: docs/google-accounts.md); those live in mcptray-google, which
// in turn links neither Fyne nor mcptray's core (app, cli, the gateway,
// the store). Neither links a test kit (internal/testkit, testdaemon,
// testkeyring, mcp/mcptest).
func TestWhatTheBinariesLink(t *testing.T) {
	t.Parallel()
	googleAPI := []string{"google.golang.org/api/", "google.golang.org/grpc", "google.golang.org/protobuf", "cloud.google.com/", "go.opentelemetry.io/"}
	// googleapi is the API's error type (and the URI templates it uses):
	// small, and what package google's rate-limit backoff reads.
	small := []string{"google.golang.org/api/googleapi", "google.golang.org/api/internal/third_party/uritemplates"}
	// The test kits are for tests: no binary links them.
	testOnly := []string{module + "/internal/testkit", module + "/internal/testdaemon", module + "/internal/testkeyring", module + "/mcp/mcptest", module + "/mcp/oauthclient/oauthtest"}
	for _, tags := range []string{"", "headless"} {
		for _, p := range deps(t, tags, ".") {
			if startsWithAny(p, testOnly) {
				t.Errorf("mcptray (tags %q) links %s, which is for tests", tags, p)
			}
			for _, bad := range googleAPI {
				if strings.HasPrefix(p, bad) && !slices.Contains(small, p) {
					t.Errorf("mcptray (tags %q) links %s: the Google API clients belong in mcptray-google", tags, p)
				}
			}
		}
	}
	core := []string{"fyne.io/", module + "/app", module + "/cli", module + "/mcp", module + "/store", module + "/ui"}
	allowed := []string{module + "/app/config", module + "/app/googlekeys", module + "/app/keyring", module + "/cli/googleserve",
		module + "/mcp/servers/google", module + "/mcp/loopback", module + "/mcp/servers/localroots", module + "/mcp/downstream", module + "/mcp/wire", module + "/mcp/stdioserver", module + "/mcp/exitwait"}
	linked := deps(t, "", "./cmd/mcptray-google")
	for _, p := range linked {
		if startsWithAny(p, testOnly) {
			t.Errorf("mcptray-google links %s, which is for tests", p)
		}
		if !startsWithAny(p, core) || startsWithAny(p, allowed) {
			continue
		}
		t.Errorf("mcptray-google links %s", p)
	}
	if !slices.Contains(linked, "google.golang.org/api/calendar/v3") {
		t.Errorf("mcptray-google does not link the Calendar client: %v", linked)
	}
}

// deps lists the packages that pkg links when built with tags.
func deps(t *testing.T, tags, pkg string) []string {
	t.Helper()
	args := []string{"list", "-deps"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v", strings.Join(args, " "), err)
	}
	return strings.Fields(string(out))
}

func startsWithAny(p string, prefixes []string) bool {
	for _, x := range prefixes {
		if p == x || strings.HasPrefix(p, x+"/") || (strings.HasSuffix(x, "/") && strings.HasPrefix(p, x)) {
			return true
		}
	}
	return false
}
