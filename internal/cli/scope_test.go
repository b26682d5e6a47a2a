package cli

import (
	"io"
	"slices"
	"strings"
	"testing"
)

func TestCheckJustification(t *testing.T) {
	for _, tc := range []struct {
		test, reason, want string
	}{
		{"TestTotal", "money.ts rounds the total TestTotal checks", ""},
		{"", "a reason", "--test is required"},
		{"TestTotal", "", "--reason is required"},
		{"TestTotal", "first line\nsecond line", "one sentence on one line"},
		{"TestTotal", "carriage\rreturn", "one sentence on one line"},
		{"TestTotal", strings.Repeat("é", 300), ""}, // characters, not bytes
		{"TestTotal", strings.Repeat("x", 301), "has 301 characters"},
	} {
		err := checkJustification(tc.test, tc.reason)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("checkJustification(%q, %.20q) = %v, want nil", tc.test, tc.reason, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("checkJustification(%q, %.20q) = %v, want %q", tc.test, tc.reason, err, tc.want)
		}
	}
}

func TestParseInterspersed(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		positional []string
		test       string
	}{
		{[]string{"a.ts", "--test", "T"}, []string{"a.ts"}, "T"},
		{[]string{"--test", "T", "a.ts", "b.ts"}, []string{"a.ts", "b.ts"}, "T"},
		{[]string{"a.ts", "--test", "T", "b.ts"}, []string{"a.ts", "b.ts"}, "T"},
		{[]string{"--test", "T", "--", "--weird-name.ts", "-x"}, []string{"--weird-name.ts", "-x"}, "T"},
		{[]string{"a.ts", "--", "--test"}, []string{"a.ts", "--test"}, ""},
	} {
		env := &Env{Stderr: io.Discard}
		fs := newFlagSet("t", env)
		test := fs.String("test", "", "")
		got, err := parseInterspersed(fs, tc.args)
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if !slices.Equal(got, tc.positional) || *test != tc.test {
			t.Errorf("%q: positional %q, --test %q; want %q, %q", tc.args, got, *test, tc.positional, tc.test)
		}
	}
}
