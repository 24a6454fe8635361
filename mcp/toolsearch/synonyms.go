package toolsearch

import "strings"

// The vocabulary of this domain: how people and tools name the same thing
// differently. Written from what MCP servers do (files, code hosting,
// chat, notes, maps, search, memory), not from a labeled query: see
// docs/performance.md, "Tool search".

// phrases become one word on both sides, before stop words go, so that
// "pull request", "pull_request" and "PR" are the same word, and "how
// long" asks for a duration.
var phrases = map[[2]string]string{
	{"pull", "request"}:    "pullrequest",
	{"merge", "request"}:   "mergerequest",
	{"look", "up"}:         "lookup",
	{"e", "mail"}:          "email",
	{"sea", "level"}:       "elevation",
	{"data", "source"}:     "datasource",
	{"knowledge", "graph"}: "memory",
	{"how", "long"}:        "duration",
	{"how", "far"}:         "distance",
	{"how", "high"}:        "elevation",
	{"how", "many"}:        "count",
}

// same lists words that mean the same thing here: each line's words all
// become its first one, on both sides.
var same = `directory folder dir folders subfolder subdirectory
	repository repo
	pullrequest pr
	mergerequest mr
	delete remove erase rm del
	issue ticket
	message msg
	database db
	environment env
	coordinate coord latlng
	latitude lat
	longitude lng
	identifier id
	organization org
	markdown md
	emoji emoticon
	reaction react
	configuration config
	information info
	description desc
	documentation docs
	picture image photo screenshot img png jpg jpeg
	sum total
	geocode geocoding`

// related lists words that often stand for each other in a task without
// meaning quite the same: a query word also looks for the others of its
// line, at relatedWeight.
var related = `search find query lookup look seek locate discover
	list show enumerate browse ls
	get fetch retrieve read view open see show display obtain recall
	content contents inside body text
	create make add new start open file
	update edit modify change patch alter set close reopen resolve
	write save store overwrite put
	delete forget drop clear wipe destroy discard purge
	move rename relocate mv
	copy fork clone duplicate
	message post send say tell chat text write
	reply answer respond thread
	comment note remark reply feedback
	review approve
	issue bug problem defect
	directory path location
	file document doc
	page document doc note
	block paragraph heading section
	user member person people profile account who teammate colleague
	channel room conversation
	history recent past said conversation
	memory remember recall knowledge fact know stored memorize
	entity node person thing
	observation fact detail note
	relation relationship link connection
	place location venue shop business restaurant cafe spot store nearby near poi
	local nearby near around
	direction route navigate drive driving walk walking travel turn way
	distance far travel duration long time
	coordinate address geocode position latitude longitude
	elevation altitude height high
	web internet online news article site website
	sql select table row database column postgres postgresql mysql sqlite
	think reason reasoning thought step plan problem
	merge combine
	branch feature
	commit change history log push
	push commit upload
	code source function class symbol defined definition
	status check ci build pass fail state
	diff change changed touch touched modify modified
	tree hierarchy structure recursive
	size big large bytes
	metadata info modified created permissions timestamp
	echo repeat back
	sum add plus calculate arithmetic
	log logging logs messages
	compress gzip zip archive
	progress long slow running operation
	environment variable env
	bot integration self`

// relatedWeight is what a related word counts for, against the query's
// own word.
const relatedWeight = 0.4

var (
	canonical   = map[string]string{}   // stem → the stem of its line's first word
	relatedTo   = map[string][]string{} // canonical stem → canonical stems of its lines' other words
	phraseStems = map[[2]string]string{}
)

func init() {
	for _, line := range strings.Split(same, "\n") {
		ws := strings.Fields(line)
		head := stem(ws[0])
		for _, w := range ws {
			canonical[stem(w)] = head
		}
	}
	for p, w := range phrases {
		phraseStems[[2]string{stem(p[0]), stem(p[1])}] = w
	}
	for _, line := range strings.Split(related, "\n") {
		ws := strings.Fields(line)
		for _, a := range ws {
			ca := canon(stem(a))
			for _, b := range ws {
				if cb := canon(stem(b)); cb != ca && !contains(relatedTo[ca], cb) {
					relatedTo[ca] = append(relatedTo[ca], cb)
				}
			}
		}
	}
}

func canon(s string) string {
	if c, ok := canonical[s]; ok {
		return c
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// terms is the analysis both sides share: words, stop words out, stems,
// phrases joined, synonyms made one.
func terms(text string) []string {
	ws := words(text)
	out := make([]string, 0, len(ws))
	for i := 0; i < len(ws); i++ {
		if i+1 < len(ws) {
			if p, ok := phraseStems[[2]string{stem(ws[i]), stem(ws[i+1])}]; ok {
				out = append(out, canon(p))
				i++
				continue
			}
		}
		if stopwords[ws[i]] {
			continue
		}
		out = append(out, canon(stem(ws[i])))
	}
	return out
}
