package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/breakerserver"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/httpapi"
	"github.com/loopbreaker/loopbreaker/scoped"
)

const adminToken = "s3cret-admin-token"

// serverTime is the server's clock, far from the browser's: countdowns
// must follow the server (the list's "time"), not the browser's clock.
var serverTime = time.Date(2025, 6, 2, 14, 0, 0, 0, time.UTC)

// site is the real API server (httpapi, which mounts the dashboard at /)
// on 127.0.0.1:<random>, over a file store in a temporary directory.
type site struct {
	t         *testing.T
	srv       *httptest.Server
	m         *breakerserver.Manager
	readToken string
	dir       string // the state directory
	cfg       lb.Config
	lists     *atomic.Int64 // the page's polls: GET /v1/breakers, first page
}

func startSite(t *testing.T, readToken string) *site {
	t.Helper()
	return startSiteWithAdmin(t, adminToken, readToken)
}

// startSiteWithAdmin is startSite with admin as the admin token ("": a
// server without one).
func startSiteWithAdmin(t *testing.T, admin, readToken string) *site {
	t.Helper()
	now := func() time.Time { return serverTime }
	dir := filepath.Join(t.TempDir(), ".loopbreaker")
	store, err := filestore.Open(dir, filestore.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	cfg := lb.Defaults()
	cfg.Budget.SessionCost = 1
	cfg.Breakers = []lb.BreakerConfig{
		{Scope: "global", FailureThreshold: 100, Window: time.Hour, Cooldown: 30 * time.Minute},
		{Scope: "stakes:high", FailureThreshold: 2, Window: 24 * time.Hour, Cooldown: 30 * time.Minute, Notify: true},
		{Scope: "tag:flaky-ci", FailureThreshold: 1, Window: time.Hour, Cooldown: 10 * time.Minute},
		{Scope: "category:deploy", FailureThreshold: 3, Window: time.Hour, Cooldown: time.Hour},
	}
	m, err := breakerserver.Open(context.Background(), store, cfg, breakerserver.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	api := httpapi.NewServer(httpapi.Config{Manager: m, AdminToken: admin, ReadToken: readToken, Now: now})
	lists := new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/v1/breakers" && !r.URL.Query().Has("after") {
			lists.Add(1)
		}
		api.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return &site{t: t, srv: srv, m: m, readToken: readToken, dir: dir, cfg: cfg, lists: lists}
}

// call sends one JSON request to the API and decodes the answer.
func (s *site) call(method, path, token string, in, out any, header ...string) int {
	s.t.Helper()
	var body bytes.Buffer
	if in != nil {
		if err := json.NewEncoder(&body).Encode(in); err != nil {
			s.t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, s.srv.URL+path, &body)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token == "" {
		token = s.readToken
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	if out != nil && res.StatusCode < 300 {
		if err := json.NewDecoder(res.Body).Decode(out); err != nil {
			s.t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	return res.StatusCode
}

// fail checks ctx in, then reports the decision as a failure.
func (s *site) fail(ctx scoped.Context) string {
	s.t.Helper()
	return s.failBecause(ctx, "tests still red")
}

// failBecause is fail with the outcome's reason.
func (s *site) failBecause(ctx scoped.Context, reason string) string {
	s.t.Helper()
	var d breakerserver.Decision
	if code := s.call("POST", "/v1/check", "", map[string]any{"context": ctx}, &d); code != 200 {
		s.t.Fatalf("check: status %d", code)
	}
	out := map[string]any{"decision_id": d.DecisionID, "result": "failure", "context": ctx, "reason": reason}
	if code := s.call("POST", "/v1/outcome", "", out, nil); code != 200 {
		s.t.Fatalf("outcome: status %d", code)
	}
	return d.DecisionID
}

func (s *site) state(scope string) lb.State {
	s.t.Helper()
	var b breakerserver.Breaker
	if code := s.call("GET", "/v1/breakers/"+scope, "", nil, &b); code != 200 {
		s.t.Fatalf("get %s: status %d", scope, code)
	}
	return b.State
}

// browser starts a headless Chromium, or skips when there is none.
func browser(t *testing.T, extra ...chromedp.ExecAllocatorOption) (context.Context, *consoleLog) {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if _, statErr := os.Stat("/usr/bin/chromium"); statErr != nil {
			t.Skip("no Chromium to drive: install it with `apt-get install -y chromium` (scripts/test does)")
		}
		path = "/usr/bin/chromium"
	}
	opts := append([]chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
	}, extra...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelCtx()
		cancelAlloc()
	})
	// The first Do starts the browser for the life of ctx (no timeout on
	// it: that would stop the browser); steps get their own timeouts.
	if err := chromedp.Do(ctx); err != nil {
		t.Skipf("Chromium (%s) does not start here: %v", path, err)
	}
	logs := &consoleLog{}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			logs.add(m)
		}
	}()
	return ctx, logs
}

// consoleLog collects what the page reports: exceptions, console errors
// and warnings, CSP violations.
type consoleLog struct {
	mu   sync.Mutex
	msgs []string
}

func (c *consoleLog) add(m chromedp.ConsoleMessage) {
	if !m.IsException() && m.Type != "error" && m.Type != "warning" {
		return
	}
	c.mu.Lock()
	c.msgs = append(c.msgs, m.String())
	c.mu.Unlock()
}

// take returns the messages collected so far and forgets them.
func (c *consoleLog) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.msgs
	c.msgs = nil
	return m
}

// stepTimeout bounds one browser step: a hang detector, generous enough
// for a headless Chromium on a loaded 2-core machine.
const stepTimeout = time.Minute

// do runs steps with a timeout of their own.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(tctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func get[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(tctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png := get(t, ctx, "screenshot", chromedp.FullScreenshot(100))
	path := filepath.Join(t.ArtifactDir(), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return get(t, ctx, "text of "+sel, chromedp.Text(chromedp.CSS(sel)))
}

// waitText waits until the text of sel matches re.
func waitText(t *testing.T, ctx context.Context, sel string, re *regexp.Regexp) string {
	t.Helper()
	deadline := time.Now().Add(stepTimeout)
	var last string
	for time.Now().Before(deadline) {
		js := fmt.Sprintf(`(document.querySelector(%q) || {}).innerText || ""`, sel)
		last = get(t, ctx, "poll "+sel, chromedp.Evaluate[string](js))
		if re.MatchString(last) {
			return last
		}
		// Polling the page, not waiting for a clock.
		do(t, ctx, "poll", chromedp.Sleep(100*time.Millisecond))
	}
	t.Fatalf("%s: text %q never matched %s", sel, last, re)
	return ""
}

func visible(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(sel))
}
func hidden(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitNotVisible(chromedp.CSS(sel))
}
func click(sel string) chromedp.Action[chromedp.Void] { return chromedp.Click(chromedp.CSS(sel)) }
func keys(sel, v string) chromedp.Action[chromedp.Void] {
	return chromedp.SendKeys(chromedp.CSS(sel), v)
}

func row(scope string) string { return fmt.Sprintf(`tr.breaker[data-scope=%q]`, scope) }

func TestDashboardInChromium(t *testing.T) {
	ctx, logs := browser(t)
	s := startSite(t, "")

	// Make breakers in every state through the API: stakes:high OPEN
	// (2 failures of 2), tag:flaky-ci HALF_OPEN (opened, then reset
	// probe-first), agent:builder-7 CLOSED with 2 failures of 5.
	high := scoped.Context{Stakes: "high", AgentID: "builder-7", Category: "deploy"}
	first := s.fail(high)
	last := s.fail(high)
	s.fail(scoped.Context{Tags: []string{"flaky-ci"}})
	if code := s.call("POST", "/v1/breakers/tag:flaky-ci/reset", adminToken, map[string]any{"mode": "probe_first", "by": "test"}, nil); code != 200 {
		t.Fatalf("probe-first reset: status %d", code)
	}
	if st := s.state("stakes:high"); st != lb.Open {
		t.Fatalf("stakes:high is %s before the page opens, want OPEN", st)
	}

	do(t, ctx, "open the page",
		chromedp.Navigate(s.srv.URL+"/"),
		visible(row("stakes:high")+".state-open"),
	)

	// The OPEN breaker: first, red, state in words, failures against the
	// threshold, a countdown from the SERVER's clock (the browser's clock
	// is months later: it would say the cooldown is over), its history.
	firstScope := get(t, ctx, "first row", chromedp.AttributeValue(chromedp.CSS(`#rows tr.breaker`), "data-scope")).Value
	if firstScope != "stakes:high" {
		t.Errorf("first row is %q, want the OPEN breaker stakes:high", firstScope)
	}
	openRow := text(t, ctx, row("stakes:high"))
	for _, want := range []string{"OPEN", "stakes:high", "2 / 2", "window 1d · cooldown 30m"} {
		if !strings.Contains(openRow, want) {
			t.Errorf("OPEN row lacks %q: %q", want, openRow)
		}
	}
	countdown := text(t, ctx, row("stakes:high")+" .countdown")
	if !regexp.MustCompile(`^(30m 00s|29m [0-5][0-9]s)$`).MatchString(countdown) {
		t.Errorf("countdown %q, want about 30m (from the server's clock)", countdown)
	}
	badgeColour := get(t, ctx, "badge colour", chromedp.Evaluate[string](
		`getComputedStyle(document.querySelector('tr[data-scope="stakes:high"] .badge')).color`))
	if badgeColour != "rgb(138, 28, 18)" {
		t.Errorf("OPEN badge colour %s, want the dark red rgb(138, 28, 18)", badgeColour)
	}
	history := waitText(t, ctx, row("stakes:high")+" + tr.detail", regexp.MustCompile(`CLOSED → OPEN`))
	for _, id := range []string{first, last} {
		if !strings.Contains(history, id) {
			t.Errorf("history lacks the failed decision %s: %q", id, history)
		}
	}
	if got := text(t, ctx, row("tag:flaky-ci")+" .badge"); got != "HALF-OPEN" {
		t.Errorf("tag:flaky-ci badge %q, want HALF-OPEN", got)
	}
	if got := text(t, ctx, row("agent:builder-7")); !strings.Contains(got, "CLOSED") || !strings.Contains(got, "2 / 5") || !strings.Contains(got, "template") {
		t.Errorf("agent:builder-7 row %q, want CLOSED, 2 / 5 failures, template", got)
	}
	counts := text(t, ctx, "#count-open") + " " + text(t, ctx, "#count-half-open") + " " + text(t, ctx, "#count-closed")
	if counts != "1 1 3" {
		t.Errorf("summary open/half-open/closed = %s, want 1 1 3", counts)
	}
	waitText(t, ctx, "#freshness", regexp.MustCompile(`^updated \d+s ago$`))

	// The page polls the API: a breaker that opens now shows up, without
	// a reload of the page.
	do(t, ctx, "mark the document", chromedp.Evaluate[chromedp.Void](`window.sameDocument = true`))
	s.fail(scoped.Context{Category: "deploy"}) // its third failure of 3
	do(t, ctx, "see category:deploy open", visible(row("category:deploy")+".state-open"))
	if !get(t, ctx, "same document", chromedp.Evaluate[bool](`window.sameDocument === true`)) {
		t.Error("the page reloaded itself to refresh")
	}
	waitText(t, ctx, "#count-open", regexp.MustCompile(`^2$`))
	screenshot(t, ctx, "dashboard-open.png")

	// The same page in dark mode and on a phone, for people to look at;
	// the state is still written out and coloured.
	media := func(scheme string) {
		t.Helper()
		features := []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: features}); err != nil {
			t.Fatalf("emulate %s: %v", scheme, err)
		}
	}
	media("dark")
	if c := get(t, ctx, "dark badge", chromedp.Evaluate[string](
		`getComputedStyle(document.querySelector('tr[data-scope="stakes:high"] .badge')).color`)); c == badgeColour {
		t.Errorf("dark mode keeps the light badge colour %s", c)
	}
	screenshot(t, ctx, "dashboard-dark.png")
	media("light")
	do(t, ctx, "phone", chromedp.EmulateViewport(390, 844))
	screenshot(t, ctx, "dashboard-phone.png")
	// At phone width nothing is cut off: every element of the breakers
	// (history, decision ids) ends inside the table's box.
	cut := get(t, ctx, "overflow at 390 px", chromedp.Evaluate[[]string](`(() => {
		const right = document.querySelector("#rows").closest("table").parentElement.getBoundingClientRect().right;
		const out = [];
		for (const e of document.querySelectorAll("#rows *")) {
			const r = e.getBoundingClientRect();
			if (r.width > 0 && r.right > right + 0.5) out.push(e.tagName + "." + e.className + ": " + e.textContent.slice(0, 40));
		}
		return out;
	})()`))
	if len(cut) > 0 || !strings.Contains(text(t, ctx, row("stakes:high")+" + tr.detail"), last) {
		t.Errorf("at 390 px these are cut off (%d): %q", len(cut), cut)
	}
	do(t, ctx, "desktop", chromedp.EmulateViewport(1280, 900))

	// Without a token the reset button is disabled and says why.
	disabled := get(t, ctx, "reset disabled", chromedp.Evaluate[bool](
		`document.querySelector('tr[data-scope="stakes:high"] button.reset').disabled`))
	if !disabled {
		t.Error("reset button is enabled without a token")
	}
	if got := text(t, ctx, row("stakes:high")+" .needs-admin"); got != "admin token required" {
		t.Errorf("non-admin hint %q", got)
	}

	// A wrong token: the server refuses, the page says so, still OPEN.
	signIn := func(token string) {
		t.Helper()
		do(t, ctx, "enter token",
			click("#sign-in"),
			visible("#token-input"),
			keys("#token-input", token),
			click(`#token-form button[type="submit"]`),
			hidden("#token-dialog"),
		)
	}
	signIn("not-the-admin-token")
	do(t, ctx, "try to reset",
		click(row("stakes:high")+" button.reset:not([disabled])"),
		visible("#reset-dialog"),
		click("#reset-confirm"),
		visible("#reset-error"),
	)
	if got := text(t, ctx, "#reset-error"); !strings.Contains(got, "admin token required") || !strings.Contains(got, "not the admin token") {
		t.Errorf("wrong-token message %q", got)
	}
	screenshot(t, ctx, "dashboard-wrong-token.png")
	do(t, ctx, "close the dialog", click(`#reset-dialog button[data-close]`), hidden("#reset-dialog"))
	if st := s.state("stakes:high"); st != lb.Open {
		t.Fatalf("stakes:high is %s after a reset with a wrong token, want OPEN", st)
	}
	do(t, ctx, "still shown OPEN", visible(row("stakes:high")+".state-open"))

	// Even with the right token, a cross-site POST is refused.
	if code := s.call("POST", "/v1/breakers/stakes:high/reset", adminToken, map[string]any{}, nil, "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"); code != http.StatusForbidden {
		t.Errorf("cross-site reset with the admin token: status %d, want 403", code)
	}
	if st := s.state("stakes:high"); st != lb.Open {
		t.Fatalf("stakes:high is %s after a cross-site reset, want OPEN", st)
	}

	// The admin: forget the wrong token, enter the right one, confirm.
	do(t, ctx, "forget token", click("#sign-out"))
	signIn(adminToken)
	do(t, ctx, "reset as admin",
		click(row("stakes:high")+" button.reset:not([disabled])"),
		visible("#reset-dialog"),
		keys("#reset-reason", "fixed the flaky fixture"),
		click("#reset-confirm"),
		hidden("#reset-dialog"),
		visible(row("stakes:high")+".state-closed"),
	)
	if got := text(t, ctx, "#message"); !strings.Contains(got, "stakes:high was reset: it is now CLOSED") {
		t.Errorf("message after reset %q", got)
	}
	if st := s.state("stakes:high"); st != lb.Closed {
		t.Errorf("stakes:high is %s after the admin's reset, want CLOSED", st)
	}
	counts = text(t, ctx, "#count-open") + " " + text(t, ctx, "#count-half-open") + " " + text(t, ctx, "#count-closed")
	if counts != "1 1 3" {
		t.Errorf("summary after reset = %s, want 1 1 3", counts)
	}
	screenshot(t, ctx, "dashboard-after-reset.png")

	// The server goes away: the page says so, keeps the last data.
	s.srv.CloseClientConnections()
	s.srv.Close()
	waitText(t, ctx, "#alert", regexp.MustCompile(`^Cannot reach the loopbreaker server at 127\.0\.0\.1:\d+: is it still running\?`))
	waitText(t, ctx, "#freshness", regexp.MustCompile(`^server unreachable · last update \d+s ago$`))
	do(t, ctx, "rows kept", visible(row("stakes:high")))
	screenshot(t, ctx, "dashboard-unreachable.png")

	// Failed fetches log network errors in the console; everything else
	// (exceptions, CSP violations) is a defect.
	for _, m := range logs.take() {
		if strings.Contains(m, "net::ERR_CONNECTION_REFUSED") || strings.Contains(m, "Failed to load resource") {
			continue
		}
		t.Errorf("page reported: %s", m)
	}
}

// A server started with LOOPBREAKER_READ_TOKEN shows nothing until the
// reader gives a token; the page says so instead of an empty table.
func TestDashboardAsksForTheReadToken(t *testing.T) {
	ctx, logs := browser(t)
	s := startSite(t, "reader-token")
	s.fail(scoped.Context{Stakes: "high"})

	do(t, ctx, "open the page", chromedp.Navigate(s.srv.URL+"/"), visible("#alert"))
	waitText(t, ctx, "#alert", regexp.MustCompile(`^The server needs a token to show the breakers: `))
	if got := text(t, ctx, "#count-open"); got != "–" {
		t.Errorf("open count %q before any answer, want –", got)
	}
	if n := get(t, ctx, "rows", chromedp.Evaluate[int](`document.querySelectorAll("#rows tr.breaker").length`)); n != 0 {
		t.Errorf("%d rows shown without a token", n)
	}
	do(t, ctx, "enter the read token",
		click("#sign-in"), visible("#token-input"), keys("#token-input", "reader-token"),
		click(`#token-form button[type="submit"]`),
		visible(row("stakes:high")+".state-closed"), hidden("#alert"))
	if got := text(t, ctx, row("stakes:high")+" .failures-text"); got != "1 / 2" {
		t.Errorf("stakes:high failures %q, want 1 / 2", got)
	}
	for _, m := range logs.take() {
		// The first, refused request is logged by the browser.
		if strings.Contains(m, "401") {
			continue
		}
		t.Errorf("page reported: %s", m)
	}
}

// TestDashboardShowsEveryBreakerAsItIs: a breaker another process makes
// after the server started (the CLI's record, a hook) shows up within one
// refresh, with the figure of the detector that opened it; agent text is
// shown with its control characters escaped, durations as people write
// them, times with their date and zone; a disabled button looks disabled.
func TestDashboardShowsEveryBreakerAsItIs(t *testing.T) {
	ctx, logs := browser(t)
	s := startSite(t, "")
	s.fail(scoped.Context{AgentID: "builder-7"})
	if _, err := chromedp.Call(ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Europe/Paris"}); err != nil {
		t.Fatalf("time zone: %v", err)
	}
	do(t, ctx, "open the page", chromedp.Navigate(s.srv.URL+"/"), visible(row("agent:builder-7")))
	waitText(t, ctx, "#freshness", regexp.MustCompile(`^updated \d+s ago$`))

	// Another process, with its own handle on the state directory, records
	// three iterations without progress in session:claude.
	now := func() time.Time { return serverTime }
	other, err := filestore.Open(s.dir, filestore.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	svc := &breaker.Service{Store: other, Engine: scoped.EngineFor(s.cfg, "session:claude", now)}
	zero := 0
	for range s.cfg.NoProgress.Threshold {
		if _, err := svc.Apply(context.Background(), []string{"session:claude"}, lb.Event{Kind: lb.EventIteration, Iteration: &lb.Iteration{FilesChanged: &zero}}); err != nil {
			t.Fatal(err)
		}
	}
	// Counted in polls, not seconds: the first list asked for after the
	// write shows it, however slowly the machine runs.
	polled := s.lists.Load()
	do(t, ctx, "see session:claude open", visible(row("session:claude")+".state-open"))
	if n := s.lists.Load() - polled; n > 1 {
		t.Errorf("session:claude appeared after %d polls since it was written, want the first one", n)
	}
	claude := text(t, ctx, row("session:claude"))
	want := fmt.Sprintf("%d / %d", s.cfg.NoProgress.Threshold, s.cfg.NoProgress.Threshold)
	if got := text(t, ctx, row("session:claude")+" .detector-name"); got != "no progress" {
		t.Errorf("session:claude detector %q, want no progress", got)
	}
	if got := text(t, ctx, row("session:claude")+" .failures-text"); got != want {
		t.Errorf("session:claude figure %q, want %s", got, want)
	}
	for _, bad := range []string{"template", "failure window", "0 / 5"} {
		if strings.Contains(claude, bad) {
			t.Errorf("session:claude row shows %q, which is not what opened it: %q", bad, claude)
		}
	}
	if !strings.Contains(claude, "loop") {
		t.Errorf("session:claude row does not say it is a loop's breaker: %q", claude)
	}
	// A loop breaker in its own words: no outcome window, no decision ids.
	if strings.Contains(claude, "window") {
		t.Errorf("session:claude row speaks of a window, which a loop breaker does not have: %q", claude)
	}
	loopDetail := waitText(t, ctx, row("session:claude")+" + tr.detail", regexp.MustCompile(`(?i)what it counts`))
	for _, bad := range []string{"failures in the window", "decision id"} {
		if strings.Contains(strings.ToLower(loopDetail), bad) {
			t.Errorf("session:claude history shows %q: %q", bad, loopDetail)
		}
	}
	if !strings.Contains(loopDetail, fmt.Sprintf("no progress: %s", want)) || !strings.Contains(loopDetail, "loopbreaker status --session claude") {
		t.Errorf("session:claude history does not say what it counts: %q", loopDetail)
	}

	// An outcome whose reason holds a terminal escape sequence, and a
	// window of one hour: "within 1h", the ESC written out.
	for range 3 {
		s.failBecause(scoped.Context{Category: "deploy"}, "\x1b[31mFAIL\x1b[0m TestDeploy\r")
	}
	do(t, ctx, "see category:deploy open", visible(row("category:deploy")+".state-open"))
	reason := text(t, ctx, row("category:deploy")+" .reason")
	if strings.ContainsAny(reason, "\x1b\r") {
		t.Errorf("reason shown with raw control characters: %q", reason)
	}
	if !strings.Contains(reason, `\x1b[31mFAIL\x1b[0m TestDeploy\x0d`) {
		t.Errorf("reason %q, want the escape sequence written out", reason)
	}
	if strings.Contains(reason, "1h0m0s") || !strings.Contains(reason, "within 1h ") {
		t.Errorf("reason %q, want the window written as 1h", reason)
	}

	// Times carry their date and zone (Paris is UTC+2 in June).
	history := waitText(t, ctx, row("category:deploy")+" + tr.detail", regexp.MustCompile(`CLOSED → OPEN`))
	if !regexp.MustCompile(`Jun 2, 2025, 04:00:00 PM GMT\+2|2 Jun 2025, 16:00:00 (GMT|CEST|UTC)\+?2?`).MatchString(history) {
		t.Errorf("history times lack their date or zone: %q", history)
	}

	// Without a token the reset buttons are disabled, and look it: not
	// the red of an active one, a not-allowed cursor, aria-disabled.
	style := func(sel, prop string) string {
		return get(t, ctx, "style", chromedp.Evaluate[string](fmt.Sprintf(
			`getComputedStyle(document.querySelector(%q)).%s`, sel, prop)))
	}
	btn := row("session:claude") + " button.reset"
	if got := get(t, ctx, "aria-disabled", chromedp.AttributeValue(chromedp.CSS(btn), "aria-disabled")).Value; got != "true" {
		t.Errorf("aria-disabled = %q, want true", got)
	}
	disabledBg, disabledCursor := style(btn, "backgroundColor"), style(btn, "cursor")
	if disabledCursor != "not-allowed" {
		t.Errorf("disabled button cursor %q, want not-allowed", disabledCursor)
	}
	screenshot(t, ctx, "dashboard-loop-breakers.png")
	do(t, ctx, "enter the admin token",
		click("#sign-in"), visible("#token-input"), keys("#token-input", adminToken),
		click(`#token-form button[type="submit"]`), hidden("#token-dialog"),
		visible(btn+":not([disabled])"))
	if enabledBg := style(btn, "backgroundColor"); enabledBg == disabledBg {
		t.Errorf("the disabled button has the enabled one's background %s", enabledBg)
	}
	if got := get(t, ctx, "aria-disabled", chromedp.AttributeValue(chromedp.CSS(btn), "aria-disabled")).Value; got != "false" {
		t.Errorf("aria-disabled = %q with the admin token, want false", got)
	}
	screenshot(t, ctx, "dashboard-loop-breakers-admin.png")
	for _, m := range logs.take() {
		t.Errorf("page reported: %s", m)
	}
}

// A server started without tokens offers no token box: a token could do
// nothing there, and resets are off, which the page says.
func TestDashboardWithoutTokensOffersNone(t *testing.T) {
	ctx, logs := browser(t)
	s := startSiteWithAdmin(t, "", "")
	s.fail(scoped.Context{AgentID: "builder-7"})
	s.fail(scoped.Context{AgentID: "builder-7"})
	do(t, ctx, "open the page", chromedp.Navigate(s.srv.URL+"/"), visible(row("agent:builder-7")))
	do(t, ctx, "no token box", hidden("#sign-in"))
	if got := text(t, ctx, "#admin-state"); !strings.Contains(got, "No tokens on this server: resets are off") {
		t.Errorf("admin state %q, want it to say resets are off without tokens", got)
	}
	for _, m := range logs.take() {
		t.Errorf("page reported: %s", m)
	}
}
