package opencode

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// What OpenCode contacts when it is offline, with nothing switched off and
// nothing prepared: every connection goes through a recording proxy, and
// the npm registry is that proxy too. It asks for its models catalogue
// and, for each configuration directory (the project's .opencode with
// loopbreaker's plugin, and ~/.config/opencode), for @opencode-ai/plugin;
// both fail, and the guarded run goes on against the model on 127.0.0.1.
func TestOfflineContacts(t *testing.T) {
	t.Parallel()
	proxy := harness.NewProxy(t)
	a := &agent{harness.NewCLI(t, harness.OpenCode1_18, bins, harness.Calc4(), nil,
		append(proxy.Env(), "npm_config_registry="+proxy.URL+"/")...)}
	a.Guard("opencode")
	file := filepath.Join(a.Repo, "calc.go")
	r := a.opencode("look at calc", read(file), read(file), fakemodel.Text("Seen it."))
	if r.Exit != 0 || !strings.Contains(r.Stdout, "Seen it.") {
		t.Errorf("the run did not go on offline: exit %d, stdout %q\n%s", r.Exit, r.Stdout, r.Stderr)
	}
	if n := a.results(); n != 2 {
		t.Errorf("%d tool results reached loopbreaker, want 2", n)
	}
	contacts := proxy.Contacts()
	t.Logf("OpenCode contacted: %q", contacts)
	if !slices.Contains(contacts, "CONNECT models.opencode.ai:443") {
		t.Errorf("no request for the models catalogue: %q", contacts)
	}
	if !slices.Contains(contacts, "registry GET /@opencode-ai/plugin") {
		t.Errorf("no request for @opencode-ai/plugin: %q", contacts)
	}
	if other := proxy.ContactsExcept("CONNECT models.opencode.ai:443", "registry GET /@opencode-ai/plugin"); len(other) != 0 {
		t.Errorf("OpenCode also contacted %q", other)
	}
}
