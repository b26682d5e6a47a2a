package config

import (
	"fmt"
	"sort"
	"strings"
)

// suggestKey returns ` (did you mean "x"?)` for the known key or group
// closest to an unknown one, or "" when nothing is close.
func (s *schema) suggestKey(unknown string) string {
	cands := make([]string, 0, len(s.leaves)+len(s.groups))
	for _, lf := range s.leaves {
		cands = append(cands, lf.key)
	}
	for g := range s.groups {
		cands = append(cands, g)
	}
	if best := closest(unknown, cands); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	// Compare the last name alone with its siblings, so that a typo in a
	// short name under a long prefix is still found
	// (breaker_template.treshold -> breaker_template.failure_threshold).
	if i := strings.LastIndex(unknown, "."); i > 0 {
		prefix, last := unknown[:i+1], unknown[i+1:]
		var siblings []string
		for _, c := range cands {
			if rest, ok := strings.CutPrefix(c, prefix); ok && !strings.Contains(rest, ".") {
				siblings = append(siblings, rest)
			}
		}
		if best := closestName(last, siblings); best != "" {
			return fmt.Sprintf(" (did you mean %q?)", prefix+best)
		}
	}
	return ""
}

// closestName is closest, and failing that compares name with the endings
// of the candidates after an underscore, so that "treshold" finds
// "failure_threshold".
func closestName(name string, cands []string) string {
	if best := closest(name, cands); best != "" {
		return best
	}
	sorted := append([]string(nil), cands...)
	sort.Strings(sorted)
	owner := map[string]string{} // ending -> the first candidate with it
	var endings []string
	for _, c := range sorted {
		parts := strings.Split(c, "_")
		for i := 1; i < len(parts); i++ {
			end := strings.Join(parts[i:], "_")
			if _, dup := owner[end]; !dup {
				owner[end] = c
				endings = append(endings, end)
			}
		}
	}
	if end := closest(name, endings); end != "" {
		return owner[end]
	}
	return ""
}

// closest picks the candidate nearest to s by edit distance, ignoring case
// first (red -> RED), or "" when none is near enough to be a typo. Ties go
// to the alphabetically first candidate, so messages are stable.
func closest(s string, cands []string) string {
	best, bestFold, bestExact := "", -1, -1
	for _, c := range cands {
		fold := editDistance(strings.ToLower(s), strings.ToLower(c))
		exact := editDistance(s, c)
		if bestFold < 0 || fold < bestFold ||
			(fold == bestFold && (exact < bestExact || (exact == bestExact && c < best))) {
			best, bestFold, bestExact = c, fold, exact
		}
	}
	if best == "" || bestFold > max(2, len([]rune(s))/4) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
