package fynelocale

import (
	"os"
	"testing"
)

func TestHideAndRestore(t *testing.T) {
	for _, tc := range []struct {
		lcAll, lang, language string
		hidden                string // the variable hidden, "" for none
	}{
		{lang: "C.UTF-8", hidden: "LANG"},
		{lang: "POSIX.utf8", hidden: "LANG"},
		{lang: "C@euro", hidden: "LANG"},
		{lcAll: "C.UTF-8", lang: "en_US.UTF-8", hidden: "LC_ALL"},
		{lang: "C"},                             // go-locale knows it
		{lang: "en_US.UTF-8"},                   // a real locale
		{lang: "de_DE.UTF-8@euro"},              // ditto
		{lcAll: "fr_FR.UTF-8", lang: "C.UTF-8"}, // LC_ALL wins
		{lang: "C.UTF-8", language: "de"},       // go-locale reads LANGUAGE then
		{lang: "Cymraeg.UTF-8"},                 // not C
	} {
		t.Setenv("LC_ALL", tc.lcAll)
		t.Setenv("LC_MESSAGES", "")
		t.Setenv("LANG", tc.lang)
		t.Setenv("LANGUAGE", tc.language)
		want := map[string]string{"LC_ALL": tc.lcAll, "LANG": tc.lang}

		hide()
		for name, value := range want {
			got := os.Getenv(name)
			if name == tc.hidden {
				value = "C"
			}
			if got != value {
				t.Errorf("%+v: after hide %s=%q, want %q", tc, name, got, value)
			}
		}
		Restore()
		for name, value := range want {
			if got := os.Getenv(name); got != value {
				t.Errorf("%+v: after Restore %s=%q, want %q", tc, name, got, value)
			}
		}
	}
}
