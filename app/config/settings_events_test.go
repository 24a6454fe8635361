package config

import "testing"

func TestEventRetentionDays(t *testing.T) {
	t.Parallel()
	c, err := Parse([]byte(`{}`), testEnv())
	if err != nil || c.Settings.EventRetentionDays != DefaultEventRetentionDays {
		t.Fatalf("default = %v, %v; want %d", c.Settings.EventRetentionDays, err, DefaultEventRetentionDays)
	}
	for in, want := range map[string]int{`1`: 1, `7`: 7, `90.0`: 90, `3e2`: 300} {
		c, err := Parse([]byte(`{"x-mcptray": {"eventRetentionDays": `+in+`}}`), testEnv())
		if err != nil || c.Settings.EventRetentionDays != want {
			t.Errorf("eventRetentionDays %s = %v, %v; want %d", in, c.Settings.EventRetentionDays, err, want)
		}
	}
	for in, want := range map[string]string{
		`"30"`: `mcp.json:1:38: x-mcptray.eventRetentionDays must be a number of days, got string`,
		`true`: `mcp.json:1:38: x-mcptray.eventRetentionDays must be a number of days, got boolean`,
		`0`:    `mcp.json:1:38: x-mcptray.eventRetentionDays must be between 1 and 36500 days, got 0`,
		`-5`:   `mcp.json:1:38: x-mcptray.eventRetentionDays must be between 1 and 36500 days, got -5`,
		`1e9`:  `mcp.json:1:38: x-mcptray.eventRetentionDays must be between 1 and 36500 days, got 1e9`,
		`1.5`:  `mcp.json:1:38: x-mcptray.eventRetentionDays must be a whole number of days, got 1.5`,
		`null`: `mcp.json:1:38: x-mcptray.eventRetentionDays must be a number of days, got null`,
		`{}`:   `mcp.json:1:38: x-mcptray.eventRetentionDays must be a number of days, got object`,
	} {
		c, err := Parse([]byte(`{"x-mcptray": {"eventRetentionDays": `+in+`}}`), testEnv())
		if c != nil || errText(err) != want {
			t.Errorf("eventRetentionDays %s: err = %s\nwant %s", in, errText(err), want)
		}
	}
}
