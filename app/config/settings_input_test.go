package config

import (
	"testing"
	"time"
)

func TestInputTimeout(t *testing.T) {
	t.Parallel()
	c, err := Parse([]byte(`{}`), testEnv())
	if err != nil || c.Settings.InputTimeout != 0 {
		t.Fatalf("default (0: the servers' own, 10 s): %v %v", c.Settings.InputTimeout, err)
	}
	c, err = Parse([]byte(`{"x-mcptray": {"inputTimeout": "30s"}}`), testEnv())
	if err != nil || c.Settings.InputTimeout != 30*time.Second {
		t.Errorf("30s: %v %v", c.Settings.InputTimeout, err)
	}
	_, err = Parse([]byte(`{"x-mcptray": {"inputTimeout": "-1s"}}`), testEnv())
	if want := `mcp.json:1:32: x-mcptray.inputTimeout must be positive`; err == nil || err.Error() != want {
		t.Errorf("bad inputTimeout: %v, want %s", err, want)
	}
}
