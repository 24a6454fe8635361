package app

import "testing"

func TestURLHost(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://Example.com/a?b":         "example.com",
		"https://example.com:8443/x":      "example.com:8443",
		"https://bücher.example/x":        "xn--bcher-kva.example",
		"https://[::1]:9/x":               "[::1]:9",
		"https://user:pw@evil.example/ok": "evil.example",
	} {
		if got := urlHost(in); got != want {
			t.Errorf("urlHost(%q) = %q, want %q", in, got, want)
		}
	}
}

// The label a server asks for its yes: a short printable string, else
// none (the inbox's own Accept, Decline and Cancel).
func TestAcceptLabel(t *testing.T) {
	t.Parallel()
	for v, want := range map[any]string{"Send": "Send", "  Send  ": "Send", "": "", nil: "", true: "", 3: "",
		"Send\nnow": "", "Send\x1b[31m": "", "a label far longer than twenty-four runes": "", "Envoyer ✉": "Envoyer ✉"} {
		if got := acceptLabel(v); got != want {
			t.Errorf("acceptLabel(%q) = %q, want %q", v, got, want)
		}
	}
}
