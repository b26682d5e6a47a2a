package dashboard

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

// apiError is the API's error body.
type apiError struct {
	Error struct{ Code, Message string }
}

func get(t *testing.T, h http.Handler, method, path string, header map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestServesPageAndAssets(t *testing.T) {
	h := Handler(Options{})
	for _, tc := range []struct {
		path, contentType, contains string
	}{
		{"/", "text/html; charset=utf-8", `<meta name="loopbreaker-api" content="/v1">`},
		{"/assets/app.js", "text/javascript; charset=utf-8", `"use strict"`},
		{"/assets/style.css", "text/css; charset=utf-8", ".state-open"},
		{"/assets/favicon.svg", "image/svg+xml", "<svg"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			res := get(t, h, http.MethodGet, tc.path, nil)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("status %d, want 200", res.StatusCode)
			}
			if got := res.Header.Get("Content-Type"); got != tc.contentType {
				t.Errorf("Content-Type %q, want %q", got, tc.contentType)
			}
			if b := body(t, res); !strings.Contains(b, tc.contains) {
				t.Errorf("body lacks %q", tc.contains)
			}
			for k, want := range map[string]string{
				"Content-Security-Policy": CSP,
				"X-Content-Type-Options":  "nosniff",
				"X-Frame-Options":         "DENY",
				"Referrer-Policy":         "no-referrer",
			} {
				if got := res.Header.Get(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			if res.Header.Get("ETag") == "" {
				t.Error("no ETag")
			}
		})
	}
}

// The CSP forbids inline code: the page must not need any.
func TestPageNeedsNoInlineCodeAndCSPForbidsIt(t *testing.T) {
	for _, bad := range []string{"unsafe-inline", "unsafe-eval", "*", "http:", "https:", "data:"} {
		if strings.Contains(CSP, bad) {
			t.Errorf("CSP allows %q: %s", bad, CSP)
		}
	}
	page := body(t, get(t, Handler(Options{}), http.MethodGet, "/", nil))
	for _, re := range []string{`<script(?:\s[^>]*)?>\s*[^<\s]`, `<style`, `\sstyle=`, `\son[a-z]+=`, `javascript:`, `https?://`} {
		if m := regexp.MustCompile(re).FindString(page); m != "" {
			t.Errorf("page has inline code or a remote reference matching %s: %q", re, m)
		}
	}
	// Every <script> loads a file.
	for _, tag := range regexp.MustCompile(`<script[^>]*>`).FindAllString(page, -1) {
		if !strings.Contains(tag, ` src="assets/`) {
			t.Errorf("script tag without a local src: %s", tag)
		}
	}
	js := body(t, get(t, Handler(Options{}), http.MethodGet, "/assets/app.js", nil))
	for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "eval(", "new Function", "document.cookie", "localStorage"} {
		if strings.Contains(js, bad) {
			t.Errorf("app.js uses %s", bad)
		}
	}
}

func TestOptionsReachThePage(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      Options
		api, poll string
	}{
		{"defaults", Options{}, "/v1", "3000"},
		{"base with trailing slash and no leading one", Options{APIBase: "api/v2/"}, "/api/v2", "3000"},
		{"poll below a second is raised to one", Options{PollInterval: 10 * time.Millisecond}, "/v1", "1000"},
		{"poll", Options{PollInterval: 5 * time.Second}, "/v1", "5000"},
		{"markup in the base is escaped", Options{APIBase: `/x"><script>`}, "/x&#34;&gt;&lt;script&gt;", "3000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := body(t, get(t, Handler(tc.opts), http.MethodGet, "/", nil))
			if want := `<meta name="loopbreaker-api" content="` + tc.api + `">`; !strings.Contains(page, want) {
				t.Errorf("page lacks %s", want)
			}
			if want := `<meta name="loopbreaker-poll-ms" content="` + tc.poll + `">`; !strings.Contains(page, want) {
				t.Errorf("page lacks %s", want)
			}
			if strings.Contains(page, "{{") {
				t.Error("page has an unfilled placeholder")
			}
		})
	}
}

func TestRevalidatesWithETag(t *testing.T) {
	h := Handler(Options{})
	first := get(t, h, http.MethodGet, "/assets/app.js", nil)
	etag := first.Header.Get("ETag")
	again := get(t, h, http.MethodGet, "/assets/app.js", map[string]string{"If-None-Match": etag})
	if again.StatusCode != http.StatusNotModified {
		t.Fatalf("status %d with a matching If-None-Match, want 304", again.StatusCode)
	}
	if cc := first.Header.Get("Cache-Control"); cc != "no-cache" {
		t.Errorf("Cache-Control %q, want no-cache", cc)
	}
	other := get(t, h, http.MethodGet, "/assets/style.css", nil).Header.Get("ETag")
	if other == etag {
		t.Error("two files share an ETag")
	}
}

func TestMethodsAndUnknownPaths(t *testing.T) {
	h := Handler(Options{})
	for _, tc := range []struct {
		method, path string
		status       int
		json         bool
	}{
		{http.MethodHead, "/", http.StatusOK, false},
		{http.MethodPost, "/", http.StatusMethodNotAllowed, false},
		{http.MethodDelete, "/assets/app.js", http.StatusMethodNotAllowed, false},
		{http.MethodGet, "/nope", http.StatusNotFound, false},
		{http.MethodGet, "/assets/", http.StatusNotFound, false},
		{http.MethodGet, "/assets/../dashboard.go", http.StatusNotFound, false},
		{http.MethodGet, "/v1/nope", http.StatusNotFound, true},
		{http.MethodPost, "/v1", http.StatusNotFound, true},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			res := get(t, h, tc.method, tc.path, nil)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", res.StatusCode, tc.status)
			}
			if tc.status == http.StatusMethodNotAllowed && res.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow %q", res.Header.Get("Allow"))
			}
			if tc.json {
				var e apiError
				if err := json.Unmarshal([]byte(body(t, res)), &e); err != nil || e.Error.Code != "not_found" || !strings.Contains(e.Error.Message, "/v1/breakers") {
					t.Errorf("want a JSON error naming the breakers endpoint, got %v %+v", err, e)
				}
			}
			if res.Header.Get("Content-Security-Policy") == "" {
				t.Error("error response without CSP")
			}
		})
	}
}

func TestSameOriginRefusesCrossSiteWrites(t *testing.T) {
	reached := 0
	h := SameOrigin(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached++
		w.WriteHeader(http.StatusNoContent)
	}))
	for _, tc := range []struct {
		name   string
		method string
		header map[string]string
		ok     bool
	}{
		{"no browser headers (curl, CLI)", http.MethodPost, nil, true},
		{"same origin by Sec-Fetch-Site", http.MethodPost, map[string]string{"Sec-Fetch-Site": "same-origin"}, true},
		{"typed by the user", http.MethodPost, map[string]string{"Sec-Fetch-Site": "none"}, true},
		{"cross-site", http.MethodPost, map[string]string{"Sec-Fetch-Site": "cross-site"}, false},
		{"same-site but another origin", http.MethodPost, map[string]string{"Sec-Fetch-Site": "same-site"}, false},
		{"old browser, other Origin", http.MethodPost, map[string]string{"Origin": "https://evil.example"}, false},
		{"old browser, own Origin", http.MethodPost, map[string]string{"Origin": "http://example.com"}, true},
		{"cross-site delete", http.MethodDelete, map[string]string{"Sec-Fetch-Site": "cross-site"}, false},
		{"cross-site read is harmless", http.MethodGet, map[string]string{"Sec-Fetch-Site": "cross-site"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := reached
			res := get(t, h, tc.method, "/v1/breakers/global/reset", tc.header)
			passed := reached > before
			if passed != tc.ok {
				t.Fatalf("reached the handler: %v, want %v (status %d)", passed, tc.ok, res.StatusCode)
			}
			if !tc.ok {
				if res.StatusCode != http.StatusForbidden {
					t.Errorf("status %d, want 403", res.StatusCode)
				}
				var e apiError
				if err := json.Unmarshal([]byte(body(t, res)), &e); err != nil || e.Error.Code != "cross_site" || !strings.Contains(e.Error.Message, "cross-site request refused") {
					t.Errorf("want a JSON error saying why, got %v %+v", err, e)
				}
			}
		})
	}
}
