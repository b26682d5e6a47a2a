// Package dashboard serves the web page of `loopbreaker serve`: a table of
// the scoped breakers, refreshed from the JSON API every few seconds, with a
// reset button for admins.
//
// The page is plain HTML, CSS and JavaScript embedded in the binary (no
// build step, nothing fetched from elsewhere). Everything it shows comes
// from the JSON API, in the browser: the handler only serves the files,
// under a Content-Security-Policy that allows no inline script or style
// and no connection to another origin.
//
// The admin token is kept in the tab's sessionStorage and sent as an
// Authorization: Bearer header, never in a cookie, so a page on another
// site cannot make the browser send it. SameOrigin adds the second guard:
// it refuses state-changing requests that a browser marks as cross-site.
package dashboard

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"html"
	"io/fs"
	"net/http"
	"strings"
	"time"
)

//go:embed assets
var assetFS embed.FS

// DefaultAPIBase is the path under which the JSON API is served.
const DefaultAPIBase = "/v1"

// DefaultPollInterval is how often the page asks the API for the breakers.
const DefaultPollInterval = 3 * time.Second

// CSP is the Content-Security-Policy of every dashboard response: scripts,
// styles and images only from the server's own files, requests only to the
// same origin, no framing, no forms posted anywhere, no plugins.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Options configure the dashboard; the zero value is usable.
type Options struct {
	// APIBase is the URL path of the JSON API, without a trailing slash
	// ("" means DefaultAPIBase). The page reads {APIBase}/breakers,
	// {APIBase}/breakers/{scope} and posts {APIBase}/breakers/{scope}/reset.
	APIBase string
	// PollInterval is how often the page refreshes (0 means
	// DefaultPollInterval; at least one second).
	PollInterval time.Duration
	// AdminToken and ReadToken say whether the server has those tokens
	// (never the tokens): the page offers a token box only to a server
	// that has one, and says resets are off on one without an admin token.
	AdminToken, ReadToken bool
}

// asset is one embedded file, ready to serve.
type asset struct {
	body        []byte
	contentType string
	etag        string
}

type handler struct {
	apiBase string
	assets  map[string]asset // by URL path: "/", "/assets/app.js", ...
}

// Handler returns the dashboard, meant to be mounted at "/" (the API's more
// specific routes take precedence in a ServeMux). It serves the page at "/"
// and its files under "/assets/"; any other path is not found.
func Handler(opts Options) http.Handler {
	base := cleanBase(opts.APIBase)
	poll := opts.PollInterval
	if poll == 0 {
		poll = DefaultPollInterval
	}
	poll = max(poll, time.Second)
	h := &handler{apiBase: base, assets: map[string]asset{}}
	types := map[string]string{
		".html": "text/html; charset=utf-8",
		".js":   "text/javascript; charset=utf-8",
		".css":  "text/css; charset=utf-8",
		".svg":  "image/svg+xml",
	}
	// The embedded files are fixed at build time: a read error here is a
	// broken build, caught by the package's tests.
	_ = fs.WalkDir(assetFS, "assets", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := assetFS.ReadFile(name)
		if err != nil {
			return err
		}
		ext := name[strings.LastIndexByte(name, '.'):]
		urlPath := "/" + name
		if name == "assets/index.html" {
			urlPath = "/"
			// The page learns where the API is from <meta> tags: no
			// inline script needed.
			body = bytes.ReplaceAll(body, []byte("{{API_BASE}}"), []byte(html.EscapeString(base)))
			body = bytes.ReplaceAll(body, []byte("{{POLL_MS}}"), []byte(formatMillis(poll)))
			body = bytes.ReplaceAll(body, []byte("{{TOKENS}}"), []byte(tokenKinds(opts)))
		}
		sum := sha256.Sum256(body)
		h.assets[urlPath] = asset{body: body, contentType: types[ext], etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	return h
}

// tokenKinds names the tokens the server has, for the page: "admin",
// "read", both, or "" for none.
func tokenKinds(opts Options) string {
	var kinds []string
	if opts.AdminToken {
		kinds = append(kinds, "admin")
	}
	if opts.ReadToken {
		kinds = append(kinds, "read")
	}
	return strings.Join(kinds, " ")
}

// cleanBase turns a configured API base into "/path" with no trailing slash.
func cleanBase(base string) string {
	base = strings.TrimRight(strings.TrimSpace(base), "/")
	if base == "" {
		return DefaultAPIBase
	}
	if !strings.HasPrefix(base, "/") {
		base = "/" + base
	}
	return base
}

func formatMillis(d time.Duration) string {
	b, _ := json.Marshal(d.Milliseconds())
	return string(b)
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setSecurityHeaders(w.Header())
	if r.URL.Path == h.apiBase || strings.HasPrefix(r.URL.Path, h.apiBase+"/") {
		// A path under the API that the API does not serve: answer like
		// the API would (JSON), not with the page.
		writeJSONError(w, http.StatusNotFound, "not_found", "no API endpoint "+r.Method+" "+r.URL.Path+
			"; the breakers are at GET "+h.apiBase+"/breakers")
		return
	}
	a, ok := h.assets[r.URL.Path]
	if !ok {
		http.Error(w, "404 not found: the dashboard is at /", http.StatusNotFound)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed: the dashboard's pages are read with GET", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", a.contentType)
	w.Header().Set("ETag", a.etag)
	// Revalidate every time (cheap, thanks to the ETag) so that a new
	// binary's page is never mixed with an old script.
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}

// setSecurityHeaders sets the headers every dashboard response carries.
func setSecurityHeaders(hd http.Header) {
	hd.Set("Content-Security-Policy", CSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	hd.Set("Cross-Origin-Resource-Policy", "same-origin")
}

// writeJSONError answers like the API does:
// {"error": {"code": ..., "message": ...}}.
func writeJSONError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]map[string]string{"error": {"code": code, "message": msg}})
}

// SameOrigin wraps an API handler so that a browser cannot be made to send
// it a state-changing request (POST, PUT, PATCH, DELETE) from another site:
// such a request, recognised by its Sec-Fetch-Site or Origin header, gets
// 403 with a JSON error of code "cross_site". Requests without those headers (curl, the CLI,
// other programs) and safe methods (GET, HEAD, OPTIONS) pass unchanged.
func SameOrigin(next http.Handler) http.Handler {
	p := http.NewCrossOriginProtection()
	p.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSONError(w, http.StatusForbidden, "cross_site", "cross-site request refused: "+r.Method+" "+r.URL.Path+
			" must come from the dashboard on this server or from a program that is not a browser")
	}))
	return p.Handler(next)
}
