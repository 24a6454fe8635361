package toolsearch

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
}

// defaultScorer is mcptray's ranking. Its numbers are in
// docs/performance.md, with what each part adds.
var defaultScorer = scorer{
	analyze: terms,
	fields:  toolFields,
	weight:  [numFields]float64{fieldName: 3, fieldServer: 2, fieldDesc: 1, fieldParams: 0.3},
	b:       [numFields]float64{fieldName: 0.3, fieldServer: 0, fieldDesc: 0.75, fieldParams: 0.75},
	k1:      1.2,
	related: relatedWeight,
	hint:    0.15,
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

// query is a query as a scorer reads it.
type query struct {
	terms  []qterm
	intent intent
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
	weights := map[string]float64{}
	var order []string
	add := func(t string, w float64) {
		if old, ok := weights[t]; !ok {
			order = append(order, t)
		} else if old >= w {
			return
		}
		weights[t] = w
	}
	ts := s.analyze(text)
	for _, t := range ts {
		add(t, 1)
	}
	if s.related > 0 {
		for _, t := range ts {
			for _, r := range relatedTo[t] {
				add(r, s.related)
			}
		}
	}
	for _, t := range order {
		q.terms = append(q.terms, qterm{t, weights[t]})
	}
	return q
}

func (s *scorer) score(q *query, d *doc, st *stats) float64 {
	var sum float64
	for _, qt := range q.terms {
		tf, ok := d.tf[qt.term]
		if !ok {
			continue
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
		sum += qt.weight * st.idf(qt.term) * pseudo / (s.k1 + pseudo)
	}
	if sum == 0 || s.hint == 0 {
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
