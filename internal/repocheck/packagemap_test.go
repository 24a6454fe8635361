package repocheck_test

import (
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/mcptray/mcptray"

// goList lists the module's packages by folder ("main" for the root).
func goList(t *testing.T) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		if p == module {
			pkgs = append(pkgs, "main")
		} else {
			pkgs = append(pkgs, strings.TrimPrefix(p, module+"/"))
		}
	}
	return pkgs
}

// architectureMap lists the packages of docs/architecture.md's map: the
// first code block under "## Packages", where a line names a package by
// its folder right after the tree's "─ " (or at the line's start for the
// roots), and a line without either goes on the description above it.
func architectureMap(doc string) []string {
	_, rest, ok := strings.Cut(doc, "\n## Packages")
	if !ok {
		return nil
	}
	_, rest, _ = strings.Cut(rest, "```\n")
	block, _, _ := strings.Cut(rest, "```")
	var pkgs []string
	for line := range strings.Lines(block) {
		if i := strings.Index(line, "─ "); i >= 0 {
			line = line[i+len("─ "):]
		} else if line == "" || line[0] == ' ' || strings.HasPrefix(line, "│") {
			continue
		}
		if f := strings.Fields(line); len(f) > 0 {
			pkgs = append(pkgs, strings.TrimSuffix(f[0], "/"))
		}
	}
	return pkgs
}

// contributingItem is a line of CONTRIBUTING.md's package map: "- `app/config` …".
var contributingItem = regexp.MustCompile("(?m)^- `([a-z][a-z0-9/_.-]*)`")

// contributingMap lists the packages under CONTRIBUTING.md's "## Where a new
// feature goes", one list item each.
func contributingMap(doc string) []string {
	_, rest, ok := strings.Cut(doc, "\n## Where a new feature goes")
	if !ok {
		return nil
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	var pkgs []string
	for _, m := range contributingItem.FindAllStringSubmatch(rest, -1) {
		pkgs = append(pkgs, strings.TrimSuffix(m[1], "/"))
	}
	return pkgs
}

// mapProblems compares a doc's package map with go list.
func mapProblems(doc string, listed, mapped []string) []string {
	var problems []string
	for _, p := range listed {
		if !slices.Contains(mapped, p) {
			problems = append(problems, doc+"'s package map lacks "+p+" (go list lists it)")
		}
	}
	seen := map[string]bool{}
	for _, p := range mapped {
		if !slices.Contains(listed, p) {
			problems = append(problems, doc+"'s package map names "+p+", which go list does not list")
		} else if seen[p] {
			problems = append(problems, doc+"'s package map names "+p+" twice")
		}
		seen[p] = true
	}
	return problems
}

// TestPackageMaps fails when docs/architecture.md's, docs/internals.md's or
// CONTRIBUTING.md's package map is not exactly `go list ./...`: a package added, moved or
// removed must be added, moved or removed there too.
func TestPackageMaps(t *testing.T) {
	listed := goList(t)
	if !slices.Contains(listed, "app") || !slices.Contains(listed, "main") {
		t.Fatalf("go list did not list app and main: %v", listed)
	}
	for doc, parse := range map[string]func(string) []string{
		"docs/architecture.md": architectureMap,
		"docs/internals.md":    architectureMap, // "## Packages in full", the same tree
		"CONTRIBUTING.md":      contributingMap,
	} {
		mapped := parse(readDoc(t, doc))
		if len(mapped) == 0 {
			t.Errorf("%s has no package map", doc)
			continue
		}
		for _, p := range mapProblems(doc, listed, mapped) {
			t.Error(p)
		}
	}
}

func TestPackageMapParsing(t *testing.T) {
	t.Parallel()
	arch := "# x\n\n## Packages and dependency direction\n\n```\nmain (main.go)   wiring\n  ├─ cli/        commands; run,\n  │              flags, servers\n" +
		"  └─ app/        the core\n       └─ app/inbox  requests\nassets/          icons\n```\n\n```\nnot/this\n```\n"
	contributing := "# c\n\n## Where a new feature goes\n\n- `main` wiring\n- `app/config` mcp.json\n- `cli/` commands\n\n## Tests\n\n- `mcp` not this\n"
	listed := []string{"main", "cli", "app", "app/config", "assets"}
	got := append(mapProblems("a", listed, architectureMap(arch)), mapProblems("c", listed, contributingMap(contributing))...)
	want := []string{
		"a's package map lacks app/config (go list lists it)",
		"a's package map names app/inbox, which go list does not list",
		"c's package map lacks app (go list lists it)",
		"c's package map lacks assets (go list lists it)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
