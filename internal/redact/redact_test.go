package redact

import (
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"},
		{"redis://bob:s3cret@h:6379/0?prefix=a", "redis://bob:xxxxx@h:6379/0?prefix=a"},
		{"redis://:s3cret@h/0", "redis://:xxxxx@h/0"},
		{"redis://h/0?prefix=a&password=s3cret&pool_size=3", "redis://h/0?prefix=a&password=xxxxx&pool_size=3"},
		{"redis://h/0?Auth_Token=s3cret", "redis://h/0?Auth_Token=xxxxx"},
		{"redis://h/0?pa%73s=s3cret", "redis://h/0?pa%73s=xxxxx"},
		{"redis://h/0?%zz=s3cret", "redis://h/0?%zz=xxxxx"},
		{"redis://:s3cret@h:x/0", "redis://(unparsable URL)"},
	} {
		got := URL(tc.in)
		if got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.Contains(got, "s3cret") {
			t.Errorf("URL(%q) shows the secret: %q", tc.in, got)
		}
	}
}
