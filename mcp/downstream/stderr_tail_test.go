package downstream

import "testing"

// The line a failed start names is the one that says why, as Node, Python,
// Go and shells print it.
func TestTellingLine(t *testing.T) {
	for _, c := range []struct {
		name string
		tail []string
		want string
	}{
		{"node", []string{
			"node:internal/modules/cjs/loader:1228",
			"  throw err;",
			"  ^",
			"Error: Cannot find module '/srv/notes/dist/index.js'",
			"    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)",
			"    at Module._load (node:internal/modules/cjs/loader:1051:27)",
			"{",
			"  code: 'MODULE_NOT_FOUND',",
			"  requireStack: []",
			"}",
			"Node.js v20.20.2",
		}, "Error: Cannot find module '/srv/notes/dist/index.js'"},
		{"python", []string{
			"Traceback (most recent call last):",
			`  File "/srv/notes/server.py", line 3, in <module>`,
			"    import mcp",
			"ModuleNotFoundError: No module named 'mcp'",
		}, "ModuleNotFoundError: No module named 'mcp'"},
		{"go panic", []string{"panic: boom", "", "goroutine 1 [running]:", "main.main()"}, "panic: boom"},
		{"shell", []string{"sh: 1: notes-mcp: not found"}, "sh: 1: notes-mcp: not found"},
		{"a traceback cut short", []string{"Traceback (most recent call last):", `  File "x.py", line 1`}, "Traceback (most recent call last):"},
		{"no error words: the last that is not a version", []string{"listening on stdio", "v1.2.3"}, "listening on stdio"},
		{"only a version", []string{"Node.js v20.20.2"}, "Node.js v20.20.2"},
		{"nothing", nil, ""},
	} {
		if got := tellingLine(c.tail); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
