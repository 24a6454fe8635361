package main

import (
	"fmt"
	"io"
)

// problem is one reason the gate fails.
type problem struct {
	set      set
	scenario string
	what     string
}

func (p problem) String() string { return fmt.Sprintf("%s %s: %s", p.set, p.scenario, p.what) }

// count is a run's tally for the table.
type count struct {
	set                     set
	total                   int // scenarios run direct
	directPass, mcptrayPass int
	listed                  int
}

// check compares each run's scenarios direct and through mcptray against
// the known gaps. A scenario that ran direct but is missing from the
// mcptray run counts as failed there.
func check(runs []result, gaps []gap, gapsName string) ([]count, []problem) {
	listed := map[key]gap{}
	for _, g := range gaps {
		listed[key{g.set, g.scenario}] = g
	}
	ran := map[set]bool{}
	var counts []count
	var problems []problem
	for _, r := range runs {
		ran[r.set] = true
		c := count{set: r.set, total: len(r.direct)}
		known := map[string]bool{}
		for _, o := range r.direct {
			known[o.scenario] = true
			through := r.mcptray[o.scenario]
			if o.pass {
				c.directPass++
			}
			if through {
				c.mcptrayPass++
			}
			g, isListed := listed[key{r.set, o.scenario}]
			if isListed {
				c.listed++
			}
			switch {
			case o.pass && !through && !isListed:
				problems = append(problems, problem{r.set, o.scenario, fmt.Sprintf("passes direct, fails through mcptray, and %s does not list it", gapsName)})
			case isListed && through:
				problems = append(problems, problem{r.set, o.scenario, fmt.Sprintf("passes through mcptray now: remove %s:%d", gapsName, g.line)})
			case isListed && !o.pass:
				problems = append(problems, problem{r.set, o.scenario, fmt.Sprintf("fails direct too, so it is no gap: remove %s:%d", gapsName, g.line)})
			}
		}
		for _, g := range gaps {
			if g.set == r.set && !known[g.scenario] {
				problems = append(problems, problem{r.set, g.scenario, fmt.Sprintf("not a scenario of this run (%s:%d)", gapsName, g.line)})
			}
		}
		counts = append(counts, c)
	}
	for _, g := range gaps {
		if !ran[g.set] {
			problems = append(problems, problem{g.set, g.scenario, fmt.Sprintf("listed in %s:%d, but %s did not run", gapsName, g.line, g.set)})
		}
	}
	return counts, problems
}

// printTable writes the counts as a Markdown table (docs/conformance.md
// has one like it).
func printTable(w io.Writer, counts []count) {
	fmt.Fprintln(w, "| requirement set | direct | through mcptray | known gaps |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, c := range counts {
		fmt.Fprintf(w, "| %s %s | %d/%d | %d/%d | %d |\n", c.set.revision, c.set.leg, c.directPass, c.total, c.mcptrayPass, c.total, c.listed)
	}
}
