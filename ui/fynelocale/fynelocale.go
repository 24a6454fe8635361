package fynelocale

import (
	"os"
	"strings"
)

// hidden is the variable set to "C" by init and its value before; name is
// "" when init changed nothing.
var hidden struct{ name, value string }

func init() { hide() }

// hide sets the variable naming the locale to "C" if it names C with a
// codeset, remembering its value for Restore.
func hide() {
	// The first of these that is set names the locale, as go-locale reads
	// it; LANGUAGE is read only after it, and only when it is not "C".
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		value := os.Getenv(name)
		if value == "" {
			continue
		}
		if isCWithCodeset(value) && os.Getenv("LANGUAGE") == "" {
			hidden.name, hidden.value = name, value
			os.Setenv(name, "C")
		}
		return
	}
}

// isCWithCodeset reports whether locale is C or POSIX with a codeset or
// modifier ("C.UTF-8", "POSIX@euro"): the C locale, spelled in a way
// go-locale cannot parse.
func isCWithCodeset(locale string) bool {
	lang, _, _ := strings.Cut(locale, "@")
	lang, _, _ = strings.Cut(lang, ".")
	return (lang == "C" || lang == "POSIX") && lang != locale
}

// Restore puts back the variable init changed, if any. Call it from the
// main package's init, which runs after every imported package's.
func Restore() {
	if hidden.name != "" {
		os.Setenv(hidden.name, hidden.value)
		hidden.name = ""
	}
}
