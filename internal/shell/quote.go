package shell

import "strings"

// Quote quotes s as one word for a POSIX shell: a word of letters, digits
// and _ . / : @ % + = , - stays as it is (none of them means anything to
// the shell; ~ does, at a word's start), anything else goes in single
// quotes, each single quote in it closed, escaped and reopened. The empty
// word is two single quotes.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:@%+=,-", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// QuoteAll quotes each word and joins them with blanks: a command line.
func QuoteAll(words ...string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = Quote(w)
	}
	return strings.Join(quoted, " ")
}
