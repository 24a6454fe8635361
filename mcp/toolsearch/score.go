package toolsearch

import (
	"regexp"
	"strings"
)

// fileName finds a file's name or extension in a query: "config.yaml",
// "README.md", ".log".
var fileName = regexp.MustCompile(`\.[A-Za-z][A-Za-z0-9]{0,4}\b`)

// The fields of a tool that a search reads.
const (
	fieldName   = iota // the tool's name, split into words, and its title
	fieldServer        // the server's name
	fieldDesc          // the description
	fieldParams        // the parameters' names and descriptions
	numFields
)

// doc is one tool as the index holds it.
type doc struct {
	server, name string
	serverKey    string                        // the first term of the server's name: the query names the server with it
	action       string                        // the kind of action of the first word of the name that has one (actions)
	tf           map[string][numFields]float32 // term → its count in each field
	length       [numFields]float32            // each field's length in terms
	readOnly     bool                          // annotations say readOnlyHint
	destructive  bool                          // annotations say destructiveHint: true, and not readOnlyHint
}

// scorer is a ranking: how a tool's text becomes terms, and how terms
// meet a query. BM25F: a term's count in each field, weighted and
// normalised by that field's length, saturates once (k1), times its idf.
type scorer struct {
	analyze func(string) []string
	fields  func(Tool) [numFields]string
	weight  [numFields]float64
	b       [numFields]float64 // length normalisation per field, 0..1
	k1      float64
	// related is the weight of a query word's related words (synonyms.go);
	// 0 leaves them out.
	related float64
	// hint is how much the annotations move a score when the query's verb
	// says read or delete; 0 ignores them.
	hint float64
	// named multiplies the score of a server's tools when the query names
	// that server ("on github", "my notion"): by 1+named. 0: no boost
	// beyond the server field's own weight.
	named float64
	// fileNames adds the word "file" to a query that names a file
	// ("config.yaml", ".log files").
	fileNames bool
	// action multiplies the score of a tool whose name starts with the
	// query's kind of action (create_, get_, search_, …: actions) by
	// 1+action.
	action float64
}

// defaultScorer is mcptray's ranking. Its numbers are in
// docs/performance.md, with what each part adds.
var defaultScorer = scorer{
	analyze:   terms,
	fields:    toolFields,
	weight:    [numFields]float64{fieldName: 3, fieldServer: 2, fieldDesc: 1, fieldParams: 0.3},
	b:         [numFields]float64{fieldName: 0.3, fieldServer: 0, fieldDesc: 0.75, fieldParams: 0.75},
	k1:        1.2,
	related:   relatedWeight,
	hint:      0.15,
	named:     0.5,
	fileNames: true,
	action:    0.3,
}

func toolFields(t Tool) [numFields]string {
	name := t.Name
	if t.Annotations != nil && t.Annotations.Title != "" {
		name += " " + t.Annotations.Title
	}
	return [numFields]string{
		fieldName:   name,
		fieldServer: t.Server,
		fieldDesc:   t.Description,
		fieldParams: paramsText(t.InputSchema),
	}
}

func (s *scorer) newDoc(t Tool) *doc {
	d := &doc{server: t.Server, name: t.Name, tf: map[string][numFields]float32{}}
	if a := t.Annotations; a != nil {
		d.readOnly = a.ReadOnlyHint
		d.destructive = !a.ReadOnlyHint && a.DestructiveHint != nil && *a.DestructiveHint
	}
	if st := s.analyze(t.Server); len(st) > 0 {
		d.serverKey = st[0]
	}
	d.action = actionOf(words(t.Name))
	for f, text := range s.fields(t) {
		seen := map[string]bool{}
		for _, term := range s.analyze(text) {
			if f == fieldName && seen[term] {
				continue // a title repeats the name: count each word once
			}
			seen[term] = true
			c := d.tf[term]
			c[f]++
			d.tf[term] = c
			d.length[f]++
		}
	}
	return d
}

// query is a query as a scorer reads it: one group per word of its own,
// the word first (weight 1), then its related words (weight related). A
// group scores as its best member, so a word with many related words
// counts once, not once per relative.
type query struct {
	groups [][]qterm
	own    map[string]bool // the query's own terms, not the related ones
	intent intent
	action string // the kind of action of the query's first word that has one
}

type qterm struct {
	term   string
	weight float64
}

// intent is what a query's verbs say the tool should do.
type intent int

const (
	intentNone intent = iota
	intentRead
	intentWrite
	intentDelete
)

var (
	readVerbs   = setOf("what which who where when how did list get show find search read view see look check fetch retrieve display")
	writeVerbs  = setOf("create make add new write update edit change set rename move post send put save store remember note open start")
	deleteVerbs = setOf("delete remove forget drop erase clear wipe destroy discard purge")
)

func (s *scorer) query(text string) query {
	var q query
	for _, w := range words(text) {
		switch {
		case deleteVerbs[w]:
			q.intent = intentDelete
		case writeVerbs[w] && q.intent != intentDelete:
			q.intent = intentWrite
		case readVerbs[w] && q.intent == intentNone:
			q.intent = intentRead
		}
	}
	q.action = actionOf(words(text))
	ts := s.analyze(text)
	if s.fileNames && fileName.MatchString(text) {
		ts = append(ts, s.analyze("file")...)
	}
	q.own = map[string]bool{}
	var order []string
	for _, t := range ts {
		if !q.own[t] {
			q.own[t] = true
			order = append(order, t)
		}
	}
	for _, t := range order {
		g := []qterm{{t, 1}}
		if s.related > 0 {
			for _, r := range relatedTo[t] {
				if !q.own[r] {
					g = append(g, qterm{r, s.related})
				}
			}
		}
		q.groups = append(q.groups, g)
	}
	return q
}

func (s *scorer) score(q *query, d *doc, st *stats) float64 {
	var sum float64
	for _, g := range q.groups {
		var best float64
		for _, qt := range g {
			best = max(best, qt.weight*s.termScore(qt.term, d, st))
		}
		sum += best
	}
	if sum == 0 {
		return 0
	}
	if s.named > 0 && d.serverKey != "" && q.own[d.serverKey] {
		sum *= 1 + s.named
	}
	if s.action > 0 && q.action != "" && q.action == d.action {
		sum *= 1 + s.action
	}
	if s.hint == 0 {
		return sum
	}
	switch q.intent {
	case intentRead:
		if d.readOnly {
			sum *= 1 + s.hint
		} else if d.destructive {
			sum *= 1 - s.hint
		}
	case intentWrite:
		if d.readOnly {
			sum *= 1 - s.hint
		}
	case intentDelete:
		if d.destructive {
			sum *= 1 + s.hint
		} else if d.readOnly {
			sum *= 1 - s.hint
		}
	}
	return sum
}

// termScore is one term's BM25F share of a document's score.
func (s *scorer) termScore(term string, d *doc, st *stats) float64 {
	tf, ok := d.tf[term]
	if !ok {
		return 0
	}
	var pseudo float64
	for f := range tf {
		if tf[f] == 0 || s.weight[f] == 0 {
			continue
		}
		norm := 1.0
		if st.avgLen[f] > 0 {
			norm = 1 - s.b[f] + s.b[f]*float64(d.length[f])/st.avgLen[f]
		}
		pseudo += s.weight[f] * float64(tf[f]) / norm
	}
	return st.idf(term) * pseudo / (s.k1 + pseudo)
}

// actions sorts the verbs that begin tool names, and that people begin
// tasks with, into kinds: a tool named get_…, retrieve-… or list_… gets,
// and so does a task that starts "show me" or "what is".
var actions = func() map[string]string {
	m := map[string]string{}
	for kind, verbs := range map[string]string{
		"create": "create make add new post file start remember note write put save store push fork",
		"get":    "get retrieve read fetch show view display what who where when how see check",
		"list":   "list enumerate browse which",
		"search": "search find query lookup look filter locate",
		"update": "update edit modify change patch set close reopen rename replace",
		"delete": "delete remove forget drop erase clear wipe destroy discard purge",
		"send":   "send reply message tell answer",
	} {
		for _, v := range strings.Fields(verbs) {
			m[v] = kind // each verb is on one line only
		}
	}
	return m
}()

// actionOf is the kind of action of the first word of ws that has one.
func actionOf(ws []string) string {
	for _, w := range ws {
		if k, ok := actions[w]; ok {
			return k
		}
	}
	return ""
}
