// Package redact hides the secrets of a URL-valued setting (store:
// redis://user:password@host:6379/0?...) in whatever loopbreaker prints:
// `config`, error messages, the server's start line.
package redact

import (
	"net/url"
	"strings"
)

// Hidden replaces a secret.
const Hidden = "xxxxx"

// URL returns raw with the password of its user info, and the value of
// every query parameter whose name looks like a credential (password,
// token, secret, ...), replaced by Hidden. Text that does not parse as a
// URL is shortened to its scheme: its parse error could hold the secret.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if scheme, _, ok := strings.Cut(raw, "://"); ok {
			return scheme + "://(unparsable URL)"
		}
		return "(unparsable URL)"
	}
	if u.RawQuery != "" {
		params := strings.Split(u.RawQuery, "&")
		for i, p := range params {
			name, _, ok := strings.Cut(p, "=")
			if ok && secretName(name) {
				params[i] = name + "=" + Hidden
			}
		}
		u.RawQuery = strings.Join(params, "&")
	}
	return u.Redacted()
}

// secretName tells a query parameter that may carry a credential.
func secretName(escaped string) bool {
	name, err := url.QueryUnescape(escaped)
	if err != nil {
		return true // cannot tell: hide it
	}
	name = strings.ToLower(name)
	for _, s := range []string{"pass", "pwd", "secret", "token", "auth", "cred", "key"} {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}
