package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func entries(n int) string {
	var b strings.Builder
	b.WriteString(`{"mcpServers": {`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"s%d": {"command": "x", "disabled": true}`, i)
	}
	b.WriteString("}}")
	return b.String()
}

func TestServerCap(t *testing.T) {
	t.Parallel()
	cfg, err := Parse([]byte(entries(MaxServers)), testEnv())
	if err != nil || len(cfg.Servers) != MaxServers {
		t.Fatalf("%d entries: %v", MaxServers, err)
	}
	_, err = Parse([]byte(entries(MaxServers+1)), testEnv())
	var se *SyntaxError
	if !errors.As(err, &se) || err.Error() != "mcp.json has 1001 servers; mcptray runs at most 1000" {
		t.Errorf("1001 entries: %v", err)
	}
	// "mcpServers" and "servers" count together.
	half := strings.TrimSuffix(strings.TrimPrefix(entries(501), `{"mcpServers": `), "}")
	if _, err := Parse([]byte(`{"mcpServers": `+half+`, "servers": `+half+`}`), testEnv()); err == nil || !strings.Contains(err.Error(), "has 1002 servers") {
		t.Errorf("501 + 501 entries: %v", err)
	}
}

func TestFileSizeCap(t *testing.T) {
	t.Parallel()
	pad := func(n int) []byte {
		head := `{"mcpServers": {}}` + "\n// "
		return []byte(head + strings.Repeat("x", n-len(head)))
	}
	if _, err := Parse(pad(MaxFileSize), testEnv()); err != nil {
		t.Errorf("a file of exactly 4 MiB: %v", err)
	}
	want := "mcp.json is 4194305 bytes; mcptray reads at most 4 MiB (4194304 bytes)"
	if _, err := Parse(pad(MaxFileSize+1), testEnv()); err == nil || err.Error() != want {
		t.Errorf("4 MiB + 1: %v", err)
	}
	if _, err := SetDisabled(pad(MaxFileSize+1), "a", true); err == nil || err.Error() != want {
		t.Errorf("SetDisabled of 4 MiB + 1: %v", err)
	}

	// Load reads no more than the cap, and names the file with its size.
	path := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(path, pad(5<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, testEnv())
	var se *SyntaxError
	if !errors.As(err, &se) || err.Error() != "big.json is 5242880 bytes; mcptray reads at most 4 MiB (4194304 bytes)" {
		t.Errorf("Load of 5 MiB: %v", err)
	}
}
