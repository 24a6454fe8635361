package toolsearch

import (
	"strings"
	"unicode"
)

// words splits text into lower-case words: at every character that is not
// a letter or a digit (snake_case, kebab-case, paths, punctuation), and
// inside camelCase and ACRONYMWords ("getHTTPStatus" → get, http, status).
func words(text string) []string {
	var out []string
	rs := []rune(text)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, strings.ToLower(string(rs[start:end])))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		switch {
		case unicode.IsLower(prev) && unicode.IsUpper(r):
			// camelCase: a word starts at the upper-case letter.
			flush(i)
			start = i
		case unicode.IsUpper(prev) && unicode.IsUpper(r) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			// HTTPStatus: the last capital starts the next word.
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return out
}

// stopwords carry no meaning for finding a tool, in a query or in a
// description. "everything" is here because people write it ("forget
// everything about Bob"), and the everything server's tools are found by
// what they do.
var stopwords = setOf(`a an the of to in on for with and or is are be been was were am
	this that these those it its i me my mine you your yours we us our he she his her him they them their
	do does did done can could would should will shall may might must please let lets
	from by at as into onto about over under than then so if just also only too very
	have has had having there here some any all each every everything
	what which who whom whose how where when why
	want need like s t d ll re ve m`)

func setOf(list string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}

// stem reduces an English word to a stem, so that "files", "listing" and
// "created" meet "file", "list" and "create". It is a small suffix
// stripper in the spirit of Porter's first steps (plurals, -ing, -ed, a
// final e), not the whole algorithm: tool names and descriptions are
// short, and what matters is that the same rule runs on both sides.
func stem(w string) string {
	if len(w) <= 3 || !isAlpha(w) || unstemmed[w] {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
	case strings.HasSuffix(w, "s"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ied") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "eed"):
	case strings.HasSuffix(w, "ing") && len(w) >= 6 && hasVowel(w[:len(w)-3]):
		w = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w) >= 5 && hasVowel(w[:len(w)-2]):
		w = undouble(w[:len(w)-2])
	}
	if strings.HasSuffix(w, "er") && len(w) >= 7 {
		w = w[:len(w)-2] // "reviewer", "manager"
	}
	if len(w) >= 4 && w[len(w)-1] == 'e' && w[len(w)-2] != 'e' {
		w = w[:len(w)-1]
	}
	return w
}

// unstemmed are words the suffix rules would take for another word
// ("news" is not "new").
var unstemmed = setOf("news always series species perhaps canvas alias https")

// undouble drops one of a final double consonant ("runn" → "run"), but
// not of ll, ss or zz ("fill", "pass").
func undouble(w string) string {
	n := len(w)
	if n >= 2 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouylsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

func hasVowel(w string) bool { return strings.ContainsAny(w, "aeiouy") }

func isAlpha(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}
