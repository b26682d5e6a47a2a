// Package lazyre holds regular expressions compiled on first use, so that
// packages with many patterns cost nothing at process start: every
// loopbreaker process (a hook call, a check) would otherwise pay for them
// before main, whether or not it used them.
package lazyre

import (
	"regexp"
	"sync"
)

// RE is a regular expression compiled on first use; safe for concurrent use.
type RE struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

// New returns a pattern compiled on first use (it panics then if src is invalid, like regexp.MustCompile).
func New(src string) *RE { return &RE{src: src} }

func (l *RE) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

func (l *RE) Match(b []byte) bool                    { return l.get().Match(b) }
func (l *RE) MatchString(s string) bool              { return l.get().MatchString(s) }
func (l *RE) FindSubmatch(b []byte) [][]byte         { return l.get().FindSubmatch(b) }
func (l *RE) FindStringSubmatch(s string) []string   { return l.get().FindStringSubmatch(s) }
func (l *RE) FindStringSubmatchIndex(s string) []int { return l.get().FindStringSubmatchIndex(s) }
func (l *RE) FindAllString(s string, n int) []string { return l.get().FindAllString(s, n) }
func (l *RE) FindAllSubmatch(b []byte, n int) [][][]byte {
	return l.get().FindAllSubmatch(b, n)
}
func (l *RE) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}
func (l *RE) ReplaceAll(src, repl []byte) []byte { return l.get().ReplaceAll(src, repl) }
func (l *RE) ReplaceAllString(src, repl string) string {
	return l.get().ReplaceAllString(src, repl)
}
func (l *RE) Split(s string, n int) []string { return l.get().Split(s, n) }
func (l *RE) FindString(s string) string     { return l.get().FindString(s) }
func (l *RE) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return l.get().ReplaceAllStringFunc(src, repl)
}
