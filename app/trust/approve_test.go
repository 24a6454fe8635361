package trust

import (
	"strings"
	"testing"
)

func TestFoldArgs(t *testing.T) {
	long := strings.Repeat("é", 300)
	items := make([]string, 25)
	for i := range items {
		items[i] = `"i"`
	}
	got := foldArgs([]byte(`{"path": "/x", "n": 12345678901234567890, "text": "` + long + `", "list": [` + strings.Join(items, ",") + `], "html": "<b>&"}`))
	for _, want := range []string{
		"{\n  \"html\": \"<b>&\",",
		`"n": 12345678901234567890`,
		strings.Repeat("é", 240) + "… (60 more characters)",
		`"… (5 more items)"`,
		`"path": "/x"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("foldArgs lacks %q:\n%s", want, got)
		}
	}
	if got := foldArgs([]byte("not json")); got != "not json" {
		t.Errorf("not JSON: %q", got)
	}
	deep := strings.Repeat(`{"a":`, 12) + "1" + strings.Repeat("}", 12)
	if got := foldArgs([]byte(deep)); !strings.Contains(got, "… (an object of 1 members)") {
		t.Errorf("deep: %s", got)
	}
	if got := foldArgs([]byte(`"` + strings.Repeat("x", 20000) + `"`)); len(got) > foldTotal+64 {
		t.Errorf("total not bounded: %d bytes", len(got))
	}
}
