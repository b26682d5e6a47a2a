package httpapi

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// bearer returns the token of an "Authorization: Bearer <token>" header.
func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return strings.TrimSpace(token), true
}

func same(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// requireRead lets a call through when no read token is set, else only
// with the read token or the admin token.
func requireRead(readToken, adminToken string) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		if readToken == "" {
			return h
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			token, ok := bearer(r)
			if !ok {
				unauthorized(w, "this server needs a token: send Authorization: Bearer <LOOPBREAKER_READ_TOKEN>")
				return
			}
			if !same(token, readToken) && (adminToken == "" || !same(token, adminToken)) {
				writeError(w, http.StatusForbidden, "forbidden", "the token is not valid here: send LOOPBREAKER_READ_TOKEN or LOOPBREAKER_ADMIN_TOKEN", nil)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
}

// requireAdmin lets a call through only with the admin token; with none
// configured the call is refused (resets are off rather than open).
func requireAdmin(adminToken string) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if adminToken == "" {
				writeError(w, http.StatusForbidden, "reset_disabled",
					"resets are disabled on this server: restart it with LOOPBREAKER_ADMIN_TOKEN set to enable them", nil)
				return
			}
			token, ok := bearer(r)
			if !ok {
				unauthorized(w, "a reset needs the admin token: send Authorization: Bearer <LOOPBREAKER_ADMIN_TOKEN>")
				return
			}
			if !same(token, adminToken) {
				writeError(w, http.StatusForbidden, "forbidden", "the token is not the admin token: a reset needs LOOPBREAKER_ADMIN_TOKEN", nil)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
}

func unauthorized(w http.ResponseWriter, msg string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="loopbreaker"`)
	writeError(w, http.StatusUnauthorized, "unauthorized", msg, nil)
}
