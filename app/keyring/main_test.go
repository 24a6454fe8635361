package keyring

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// childEnv makes the test binary run one keyring call instead of the
// tests, so that a test can give it its own D-Bus environment.
const childEnv = "MCPTRAY_KEYRING_TEST_CHILD"

// childResult is what a child prints on stdout.
type childResult struct {
	Message     string
	Unavailable bool
	NotFound    bool
	Detail      string // the underlying error of an UnavailableError
}

func TestMain(m *testing.M) {
	if name := os.Getenv(childEnv); name != "" {
		_, err := Get(name)
		r := childResult{}
		if err != nil {
			r.Message = err.Error()
			r.Unavailable = errors.Is(err, ErrUnavailable)
			r.NotFound = errors.Is(err, ErrNotFound)
			var ue *UnavailableError
			if errors.As(err, &ue) {
				r.Detail = fmt.Sprint(ue.Err)
			}
		}
		json.NewEncoder(os.Stdout).Encode(r)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// inSession reports whether the test runs inside the project's private
// desktop session, where every tool these tests need must be present.
func inSession() bool { return os.Getenv("MCPTRAY_TEST_SESSION") == "1" }

// needTool returns the path of a program, skipping the test when it is
// missing (failing it inside the project's test session).
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if inSession() {
			t.Fatalf("%s is missing from the test session: %v", name, err)
		}
		t.Skipf("%s not installed", name)
	}
	return p
}
