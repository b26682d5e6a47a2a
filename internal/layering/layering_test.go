package layering

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/loopbreaker/loopbreaker"

// A rule says that the packages in from depend on none of the packages
// in not, directly or through another package (subpackages included). A
// name in from that ends in "/..." is every package below it.
type rule struct {
	from []string
	not  []string
	why  string
}

// The front ends sit on top; the layers below answer hook calls and run
// the engine without them. Each agent CLI's package speaks its protocol
// with the shared code of hook/ and hookinstall/, which names no agent,
// and knows nothing of the policy, the engine or the stores above it.
func rules() []rule {
	frontEnds := []string{"internal/cli", "httpapi", "mcpserver"}
	below := []string{"hook", "hookinstall", "hookpolicy", "tamper", "worktree", "transcript", "replay", "breaker", "session"}
	return []rule{
		{from: append(slices.Clone(below), "agent/..."), not: frontEnds, why: "the agents, the hook path, the engine and the session are used by the front ends, never the other way"},
		{from: slices.DeleteFunc(slices.Clone(below), func(p string) bool { return p == "session" }), not: []string{"redisstore"},
			why: "only the session opens a store; the engine works over the Store interface"},
		{from: []string{"hook", "hookinstall", "tamper", "transcript", "cannotrun", "breaker", "errsig", "testparse"}, not: []string{"agent"},
			why: "the shared protocol code and the engine name no agent CLI: each agent's package uses them"},
		{from: []string{"agent/..."}, not: []string{"hookpolicy", "session", "breaker", "worktree", "replay", "filestore", "redisstore", "scoped", "breakerserver"},
			why: "an agent's package says what its CLI is, below the policy, the engine and the stores"},
		{from: append(slices.Clone(below), "scoped"), not: []string{"breakerserver"},
			why: "the hook path and the loop commands resolve a scope's settings with scoped; the server's breakers, their cache and write-ahead log, are the server's"},
	}
}

// deps maps each package named to its dependencies inside the module, from
// one `go list` (the packages, not their tests).
func deps(t *testing.T, pkgs ...string) map[string][]string {
	t.Helper()
	args := []string{"list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`}
	for _, p := range pkgs {
		args = append(args, module+"/"+p)
	}

	cmd := exec.Command("go", args...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list: %v\n%s", err, msg)
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		var own []string
		for _, d := range f[1:] {
			if d == module || strings.HasPrefix(d, module+"/") {
				own = append(own, strings.TrimPrefix(strings.TrimPrefix(d, module), "/"))
			}
		}
		graph[strings.TrimPrefix(f[0], module+"/")] = own
	}
	return graph
}

// violations lists "from -> dep" for each dependency a rule forbids.
func violations(graph map[string][]string, r rule) []string {
	var out []string
	var froms []string
	for _, from := range r.from {
		prefix, ok := strings.CutSuffix(from, "/...")
		if !ok {
			froms = append(froms, from)
			continue
		}
		for p := range graph {
			if p == prefix || strings.HasPrefix(p, prefix+"/") {
				froms = append(froms, p)
			}
		}
	}
	slices.Sort(froms)
	for _, from := range slices.Compact(froms) {
		for _, d := range graph[from] {
			for _, n := range r.not {
				if d == n || strings.HasPrefix(d, n+"/") {
					out = append(out, from+" -> "+d)
				}
			}
		}
	}
	return out
}

func TestLayering(t *testing.T) {
	var all []string
	for _, r := range rules() {
		all = append(all, r.from...)
		all = append(all, r.not...)
	}
	slices.Sort(all)
	// Listing the forbidden packages too fails the test when one of them
	// is renamed, rather than letting its rule pass over nothing.
	graph := deps(t, slices.Compact(all)...)
	for _, r := range rules() {
		if v := violations(graph, r); len(v) > 0 {
			t.Errorf("%s:\n  %s", r.why, strings.Join(v, "\n  "))
		}
	}
}

// TestViolationsFound: the check sees a dependency that does exist, so
// that the rules above are checked against a real graph.
func TestViolationsFound(t *testing.T) {
	graph := deps(t, "internal/cli", "session")
	got := violations(graph, rule{from: []string{"internal/cli", "session"}, not: []string{"hookinstall", "redisstore"}})
	want := []string{"internal/cli -> hookinstall", "internal/cli -> redisstore", "session -> redisstore"}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("violations %q do not include %q", got, w)
		}
	}
}

// TestDomainStandsAlone: the domain package imports no other package of
// the module.
func TestDomainStandsAlone(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", `{{range .Deps}}{{.}} {{end}}`, module)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		if strings.HasPrefix(d, module+"/") {
			t.Errorf("the domain package depends on %s", d)
		}
	}
}

// TestHookClientStaysThin: the thin hook client (cmd/loopbreaker-hook)
// and the wire format it shares with the resident breaker import the
// standard library and each other only, so that the client starts in
// about a hello-world's time: a module package or a library would bring
// its start-up cost into every hook call.
func TestHookClientStaysThin(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{range .Deps}} {{.}}{{end}}`, "./cmd/loopbreaker-hook", "./internal/residentwire")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	allowed := module + "/internal/residentwire"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		from, deps, _ := strings.Cut(line, ":")
		for _, d := range strings.Fields(deps) {
			// The standard library's paths have no dot in their first
			// element; its vendored golang.org/x copies are under vendor/.
			first, _, _ := strings.Cut(d, "/")
			if d == allowed || !strings.Contains(first, ".") {
				continue
			}
			t.Errorf("%s depends on %s: the hook client takes the standard library only", from, d)
		}
	}
}
