package toolsearch

import "strings"

// bm25 is the baseline mcptray's ranking must beat: plain BM25 (k1 1.2,
// b 0.75) over one text per tool — its name, server, description and
// parameters — split into lower-case words (snake, kebab and camel case
// too) less stop words: no stems, no synonyms, no field weights, no
// annotations. It is what mcpproxy-go's retrieve_tools does, and it lives
// in a test file: only the measurements use it.
var bm25 = scorer{
	analyze: plainTerms,
	fields: func(t Tool) [numFields]string {
		return [numFields]string{fieldDesc: joinFields(t)}
	},
	weight: [numFields]float64{fieldDesc: 1},
	b:      [numFields]float64{fieldDesc: 0.75},
	k1:     1.2,
}

func plainTerms(text string) []string {
	var out []string
	for _, w := range words(text) {
		if !stopwords[w] {
			out = append(out, w)
		}
	}
	return out
}

// joinFields puts every field of a tool into one text.
func joinFields(t Tool) string {
	f := toolFields(t)
	return strings.Join(f[:], " ")
}
