package depcheck_test

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// The dependency rules of DESIGN.md section 2:
//
//	main → ui → app → {mcp, store};  ui → assets
//
// Only ui (and assets) use Fyne, only mcp uses the MCP SDK, nothing but main
// imports ui, mcp and store don't import each other, store is a leaf, and mcp
// imports neither app nor ui. Test imports count too. For the split of mcp
// (the gateway in mcp, the server side in mcp/downstream, the wire code in
// mcp/wire) and the built-in servers: mcp/downstream does not import the
// gateway, mcp/wire imports no package of the module, and mcp/servers/...
// import neither the gateway nor app. A cli package, like any but main,
// may not import ui. internal/repocheck, which checks the docs against the
// source it parses, imports no package of the module, and neither does the
// test kit (internal/testkit), which every package's tests may use. app/events (the
// event pipeline) is given its store and logger: it imports no package of
// app but app/config, and no cli. For the split of app (issue 29):
// app/inbox imports no app package but app/config (so neither app,
// app/control, app/events nor app/trust), and no cli package. app/trust
// (pins, launch approval, call approval) asks through the inbox and is
// given what it needs of the core: it imports neither app, app/control,
// app/events nor cli (nor ui, which only main imports).
// app/control (the control API and its client) imports no app package but
// app/config, app/events and app/inbox (whose types are on the wire), no
// cli, and neither the gateway (mcp) nor mcp/downstream: the client that
// the CLI links does not link the supervisor.
// app/keyring, which the CLI, the core and mcptray-google all use,
// imports no package of the module but app/config (the secrets' names) and
// the test kit in its tests. app/googleaccounts, the Google tab's facade,
// imports no app package but app/googlekeys and app/keyring, and no cli.
// app/oauthkeys, the remote servers' sign-ins on the keyring, imports no
// app package but app/keyring, and no cli: the CLI and the core both use it.
// app/assistants (setup, import, the Assistants tab's API) imports no app
// package but app/config, and no cli: the CLI and the UI both use it.
// app/config, which reads mcp.json and makes every edit of it, imports no
// package of the module but the test kit in its tests: app, the gateway,
// cli and ui use it, never the other way.
// app/remote (the core as a window in another process sees it, over the
// control API) may import app and app/...; nothing in app imports it (ui
// and main may).
// internal/wine, the tests of mcptray.exe under Wine, imports no package of
// the module but the test kit: it drives the Windows build through its
// command line, so no Linux code stands in for the Windows program.

const module = "github.com/mcptray/mcptray"

// forbidden says why the package from (an import path inside the module) may
// not import to, or returns "" when it may. Both paths are normalized (see
// normalize).
func forbidden(from, to string) string {
	rel := func(p string) string { return strings.TrimPrefix(strings.TrimPrefix(p, module), "/") }
	in := func(p, tree string) bool {
		if !strings.HasPrefix(p, module) {
			return false
		}
		r := rel(p)
		return r == tree || strings.HasPrefix(r, tree+"/")
	}
	core := in(from, "app") || in(from, "mcp") || in(from, "store")
	switch {
	case core && (to == "fyne.io" || strings.HasPrefix(to, "fyne.io/")):
		return "only ui may use Fyne"
	case in(to, "ui") && from != module && !in(from, "ui"):
		return "nothing but main imports ui"
	case in(from, "mcp") && in(to, "store"), in(from, "store") && in(to, "mcp"):
		return "mcp and store don't import each other"
	case in(from, "store") && in(to, "app"):
		return "store is a leaf"
	case in(from, "mcp") && in(to, "app"):
		return "mcp must not import app"
	case in(from, "mcp/servers") && to == module+"/mcp":
		return "built-in servers don't import the gateway"
	case in(from, "mcp/downstream") && to == module+"/mcp":
		return "the server side doesn't import the gateway"
	case in(from, "app/config") && (to == module || strings.HasPrefix(to, module+"/")) && !in(to, "app/config") && !in(to, "internal/testkit"):
		return "mcp.json's reader and editor imports no package of the module"
	case in(from, "app/events") && (in(to, "app") && !in(to, "app/events") && !in(to, "app/config") || in(to, "cli")):
		return "events imports no app package but app/config, and no cli"
	case in(from, "mcp/wire") && (to == module || strings.HasPrefix(to, module+"/")):
		return "the wire code imports no package of the module"
	case in(from, "internal/repocheck") && (to == module || strings.HasPrefix(to, module+"/")):
		return "repocheck reads the module's source, it links none of it"
	case in(from, "app/inbox") && in(to, "app") && !in(to, "app/inbox") && !in(to, "app/config"):
		return "the inbox imports no app package but app/config"
	case in(from, "app/inbox") && in(to, "cli"):
		return "the inbox imports no cli package"
	case in(from, "app/keyring") && (to == module || strings.HasPrefix(to, module+"/")) && !in(to, "app/keyring") && !in(to, "app/config") && !in(to, "internal/testkit"):
		return "the keyring imports no package of the module but app/config"
	case in(from, "app/googleaccounts") && (in(to, "app") && !in(to, "app/googleaccounts") && !in(to, "app/googlekeys") && !in(to, "app/keyring") || in(to, "cli")):
		return "the Google accounts' facade imports no app package but app/googlekeys and app/keyring, and no cli"
	case in(from, "app/oauthkeys") && (in(to, "app") && !in(to, "app/oauthkeys") && !in(to, "app/keyring") || in(to, "cli")):
		return "the OAuth keys import no app package but app/keyring, and no cli"
	case in(from, "app/assistants") && (in(to, "app") && !in(to, "app/assistants") && !in(to, "app/config") || in(to, "cli")):
		return "the assistants' configs import no app package but app/config, and no cli"
	case in(from, "internal/testkit") && (to == module || strings.HasPrefix(to, module+"/")):
		return "the test kit imports no package of the module"
	case in(from, "internal/wine") && (to == module || strings.HasPrefix(to, module+"/")) && !in(to, "internal/testkit"):
		return "the Wine tests drive mcptray.exe by its command line: no package of the module but the test kit"
	case in(from, "app/trust") && (to == module+"/app" || in(to, "app/control") || in(to, "app/events") || in(to, "cli")):
		return "trust imports neither app, app/control, app/events nor cli"
	case in(from, "app/control") && (in(to, "app") && !in(to, "app/control") && !in(to, "app/config") && !in(to, "app/events") && !in(to, "app/inbox") || in(to, "cli")):
		return "control imports no app package but app/config, app/events and app/inbox, and no cli"
	case in(from, "app/control") && (to == module+"/mcp" || in(to, "mcp/downstream")):
		return "control's client links neither the gateway nor the server side"
	case in(to, "app/remote") && in(from, "app") && !in(from, "app/remote"):
		return "nothing in app imports app/remote, the core as another process sees it"
	case (in(from, "app") || in(from, "store") || in(from, "ui")) &&
		strings.HasPrefix(to, "github.com/modelcontextprotocol/go-sdk"):
		return "only mcp may use the MCP SDK"
	}
	return ""
}

// normalize turns a `go list -test` import path into the package it belongs
// to: "p [q.test]" (a test variant) and "p_test" (an external test package)
// become p; "p.test" (a generated test main) becomes "".
func normalize(p string) string {
	if i := strings.Index(p, " ["); i >= 0 {
		p = p[:i]
	}
	if strings.HasSuffix(p, ".test") {
		return ""
	}
	return strings.TrimSuffix(p, "_test")
}

// short names a package of the module by its folder ("app/config", "main").
func short(p string) string {
	if p == module {
		return "main"
	}
	return strings.TrimPrefix(p, module+"/")
}

// importGraph lists every package the module's packages and their tests
// reach, with its direct imports, all normalized.
func importGraph(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-test", "-deps",
		"-f", "{{.ImportPath}}{{range .Imports}}\t{{.}}{{end}}", "./...")
	cmd.Dir = "../.." // the module's root
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list: %v\n%s", err, msg)
	}
	graph := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		fields := strings.Split(strings.TrimRight(line, "\n"), "\t")
		from := normalize(fields[0])
		if from == "" {
			continue
		}
		for _, to := range fields[1:] {
			if to = normalize(to); to != "" && to != from {
				graph[from] = append(graph[from], to)
			}
		}
		if _, ok := graph[from]; !ok {
			graph[from] = nil
		}
	}
	return graph
}

// violations checks every import of a module package, and every package
// outside the module that one reaches (so app importing a library that
// imports Fyne is caught too).
func violations(graph map[string][]string) []string {
	var found []string
	seen := map[string]bool{}
	report := func(msg string) {
		if !seen[msg] {
			seen[msg] = true
			found = append(found, msg)
		}
	}
	for from, imports := range graph {
		if from != module && !strings.HasPrefix(from, module+"/") {
			continue
		}
		for _, to := range imports {
			if why := forbidden(from, to); why != "" {
				report(short(from) + " imports " + to + " (forbidden: " + why + ")")
				continue
			}
			if strings.HasPrefix(to, module) {
				continue
			}
			// Through packages outside the module, to one it may not use.
			if chain := reach(graph, from, to); chain != nil {
				last := chain[len(chain)-1]
				report(short(from) + " imports " + last + " through " +
					strings.Join(chain[:len(chain)-1], " → ") +
					" (forbidden: " + forbidden(from, last) + ")")
			}
		}
	}
	sort.Strings(found)
	return found
}

// reach searches the packages outside the module reachable from start for one
// that from may not import, and returns the chain leading to it.
func reach(graph map[string][]string, from, start string) []string {
	prev := map[string]string{start: ""}
	queue := []string{start}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if forbidden(from, p) != "" {
			var chain []string
			for ; p != ""; p = prev[p] {
				chain = append([]string{p}, chain...)
			}
			return chain
		}
		for _, q := range graph[p] {
			if _, ok := prev[q]; !ok && !strings.HasPrefix(q, module) {
				prev[q] = p
				queue = append(queue, q)
			}
		}
	}
	return nil
}

func TestDeps(t *testing.T) {
	t.Parallel()
	graph := importGraph(t)
	for _, p := range []string{module + "/app", module + "/ui", module + "/mcp/downstream", module + "/mcp/wire"} {
		if _, ok := graph[p]; !ok {
			t.Fatalf("go list did not list %s; is this the repo root?", p)
		}
	}
	for _, v := range violations(graph) {
		t.Error(v)
	}
}

func TestDepsRules(t *testing.T) {
	t.Parallel()
	m := func(p string) string { return module + "/" + p }
	graph := map[string][]string{
		module:                      {m("ui"), m("app"), "fyne.io/fyne/v2/app"},
		m("ui"):                     {m("app"), m("assets"), "fyne.io/fyne/v2", "github.com/godbus/dbus/v5"},
		m("assets"):                 {"fyne.io/fyne/v2"},
		m("app"):                    {m("mcp"), m("store"), "fyne.io/fyne/v2"},
		m("app/config"):             {"example.com/pretty", m("app")},
		"example.com/pretty":        {"example.com/deeper"},
		"example.com/deeper":        {"fyne.io/fyne/v2/widget"},
		m("app/keyring"):            {m("ui"), "github.com/modelcontextprotocol/go-sdk/mcp", m("app/config"), m("app"), m("cli")},
		m("app/assistants"):         {m("app"), m("app/config"), m("app/keyring"), m("cli"), "github.com/BurntSushi/toml"},
		m("app/events"):             {m("app"), m("app/inbox"), m("app/config"), m("cli"), m("store"), m("mcp")},
		m("app/control"):            {m("app"), m("app/config"), m("app/events"), m("app/inbox"), m("app/trust"), m("cli"), m("mcp"), m("mcp/downstream"), m("mcp/wire")},
		m("app/googleaccounts"):     {m("app"), m("app/googlekeys"), m("app/keyring"), m("app/config"), m("cli"), m("mcp/servers/google")},
		m("app/oauthkeys"):          {m("app/keyring"), m("app"), m("mcp/oauthclient")},
		m("app/inbox"):              {m("app"), m("app/config"), m("app/events"), m("app/control"), m("app/trust"), m("cli"), m("ui"), m("mcp"), m("store")},
		m("app/trust"):              {m("app"), m("app/config"), m("app/inbox"), m("app/keyring"), m("app/control"), m("app/events"), m("cli"), m("ui"), m("mcp"), m("mcp/downstream"), m("store")},
		m("mcp"):                    {m("store"), m("app"), "github.com/modelcontextprotocol/go-sdk/mcp"},
		m("mcp/mcptest"):            {m("ui")},
		m("mcp/servers/ssh"):        {m("mcp"), m("mcp/stdioserver")},
		m("mcp/downstream"):         {m("mcp"), m("mcp/wire"), m("mcp/exitwait")},
		m("mcp/wire"):               {m("mcp/exitwait"), "golang.org/x/sys/unix"},
		m("cli"):                    {m("app"), m("ui")},
		m("store"):                  {m("mcp"), m("app/config")},
		m("ui/tray"):                {m("ui")},
		m("internal/repocheck"):     {m("app"), "go/parser"},
		m("internal/testkit"):       {m("mcp/wire")},
		m("internal/wine"):          {m("internal/testkit"), m("app/control")},
		m("app/remote"):             {m("app"), m("app/control"), m("app/assistants")},
		m("app/googlekeys"):         {m("app/remote")},
		"fyne.io/fyne/v2":           nil,
		"fyne.io/fyne/v2/app":       {"fyne.io/fyne/v2"},
		"github.com/godbus/dbus/v5": nil,
	}
	want := []string{
		"app imports fyne.io/fyne/v2 (forbidden: only ui may use Fyne)",
		"app/assistants imports " + m("app") + " (forbidden: the assistants' configs import no app package but app/config, and no cli)",
		"app/assistants imports " + m("app/keyring") + " (forbidden: the assistants' configs import no app package but app/config, and no cli)",
		"app/assistants imports " + m("cli") + " (forbidden: the assistants' configs import no app package but app/config, and no cli)",
		"app/config imports fyne.io/fyne/v2/widget through example.com/pretty → example.com/deeper (forbidden: only ui may use Fyne)",
		"app/config imports " + m("app") + " (forbidden: mcp.json's reader and editor imports no package of the module)",
		"app/control imports " + m("app") + " (forbidden: control imports no app package but app/config, app/events and app/inbox, and no cli)",
		"app/control imports " + m("app/trust") + " (forbidden: control imports no app package but app/config, app/events and app/inbox, and no cli)",
		"app/control imports " + m("cli") + " (forbidden: control imports no app package but app/config, app/events and app/inbox, and no cli)",
		"app/control imports " + m("mcp") + " (forbidden: control's client links neither the gateway nor the server side)",
		"app/control imports " + m("mcp/downstream") + " (forbidden: control's client links neither the gateway nor the server side)",
		"app/events imports " + m("app") + " (forbidden: events imports no app package but app/config, and no cli)",
		"app/events imports " + m("app/inbox") + " (forbidden: events imports no app package but app/config, and no cli)",
		"app/events imports " + m("cli") + " (forbidden: events imports no app package but app/config, and no cli)",
		"app/googleaccounts imports " + m("app") + " (forbidden: the Google accounts' facade imports no app package but app/googlekeys and app/keyring, and no cli)",
		"app/googleaccounts imports " + m("app/config") + " (forbidden: the Google accounts' facade imports no app package but app/googlekeys and app/keyring, and no cli)",
		"app/googleaccounts imports " + m("cli") + " (forbidden: the Google accounts' facade imports no app package but app/googlekeys and app/keyring, and no cli)",
		"app/googlekeys imports " + m("app/remote") + " (forbidden: nothing in app imports app/remote, the core as another process sees it)",
		"app/inbox imports " + m("app") + " (forbidden: the inbox imports no app package but app/config)",
		"app/inbox imports " + m("app/control") + " (forbidden: the inbox imports no app package but app/config)",
		"app/inbox imports " + m("app/events") + " (forbidden: the inbox imports no app package but app/config)",
		"app/inbox imports " + m("app/trust") + " (forbidden: the inbox imports no app package but app/config)",
		"app/inbox imports " + m("cli") + " (forbidden: the inbox imports no cli package)",
		"app/inbox imports " + m("ui") + " (forbidden: nothing but main imports ui)",
		"app/keyring imports " + m("app") + " (forbidden: the keyring imports no package of the module but app/config)",
		"app/keyring imports " + m("cli") + " (forbidden: the keyring imports no package of the module but app/config)",
		"app/keyring imports " + m("ui") + " (forbidden: nothing but main imports ui)",
		"app/keyring imports github.com/modelcontextprotocol/go-sdk/mcp (forbidden: only mcp may use the MCP SDK)",
		"app/oauthkeys imports " + m("app") + " (forbidden: the OAuth keys import no app package but app/keyring, and no cli)",
		"app/trust imports " + m("app") + " (forbidden: trust imports neither app, app/control, app/events nor cli)",
		"app/trust imports " + m("app/control") + " (forbidden: trust imports neither app, app/control, app/events nor cli)",
		"app/trust imports " + m("app/events") + " (forbidden: trust imports neither app, app/control, app/events nor cli)",
		"app/trust imports " + m("cli") + " (forbidden: trust imports neither app, app/control, app/events nor cli)",
		"app/trust imports " + m("ui") + " (forbidden: nothing but main imports ui)",
		"cli imports " + m("ui") + " (forbidden: nothing but main imports ui)",
		"internal/repocheck imports " + m("app") + " (forbidden: repocheck reads the module's source, it links none of it)",
		"internal/testkit imports " + m("mcp/wire") + " (forbidden: the test kit imports no package of the module)",
		"internal/wine imports " + m("app/control") + " (forbidden: the Wine tests drive mcptray.exe by its command line: no package of the module but the test kit)",
		"mcp imports " + m("app") + " (forbidden: mcp must not import app)",
		"mcp imports " + m("store") + " (forbidden: mcp and store don't import each other)",
		"mcp/downstream imports " + m("mcp") + " (forbidden: the server side doesn't import the gateway)",
		"mcp/mcptest imports " + m("ui") + " (forbidden: nothing but main imports ui)",
		"mcp/servers/ssh imports " + m("mcp") + " (forbidden: built-in servers don't import the gateway)",
		"mcp/wire imports " + m("mcp/exitwait") + " (forbidden: the wire code imports no package of the module)",
		"store imports " + m("app/config") + " (forbidden: store is a leaf)",
		"store imports " + m("mcp") + " (forbidden: mcp and store don't import each other)",
	}
	got := violations(graph)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDepsNormalize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		module + "/app": module + "/app",
		module + "/app [" + module + "/app.test]":      module + "/app",
		module + "/app_test [" + module + "/app.test]": module + "/app",
		module + "/app.test":                           "",
		module + "_test [" + module + ".test]":         module,
		"fyne.io/fyne/v2 [" + module + "/ui.test]":     "fyne.io/fyne/v2",
	} {
		if got := normalize(in); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
}
