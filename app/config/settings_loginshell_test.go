package config

import "testing"

func TestLoginShellSetting(t *testing.T) {
	t.Parallel()
	for in, off := range map[string]bool{`{}`: false, `{"x-mcptray": {"loginShell": true}}`: false, `{"x-mcptray": {"loginShell": false}}`: true} {
		c, err := Parse([]byte(in), testEnv())
		if err != nil || c.Settings.NoLoginShell != off {
			t.Errorf("%s: NoLoginShell = %v, %v; want %v", in, c.Settings.NoLoginShell, err, off)
		}
	}
	_, err := Parse([]byte(`{"x-mcptray": {"loginShell": "off"}}`), testEnv())
	if want := `mcp.json:1:30: x-mcptray.loginShell must be true or false, got string`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}
