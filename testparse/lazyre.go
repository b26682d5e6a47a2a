package testparse

import (
	"regexp"
	"sync"
)

// lazyRE is a regular expression compiled on first use. The parsers hold
// some forty patterns; compiling them at package init cost every
// loopbreaker process (a hook call, a check) milliseconds before main,
// whether or not it parsed any test output.
type lazyRE struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

func lazy(src string) *lazyRE { return &lazyRE{src: src} }

func (l *lazyRE) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

func (l *lazyRE) Match(b []byte) bool                  { return l.get().Match(b) }
func (l *lazyRE) MatchString(s string) bool            { return l.get().MatchString(s) }
func (l *lazyRE) FindSubmatch(b []byte) [][]byte       { return l.get().FindSubmatch(b) }
func (l *lazyRE) FindStringSubmatch(s string) []string { return l.get().FindStringSubmatch(s) }
func (l *lazyRE) FindAllSubmatch(b []byte, n int) [][][]byte {
	return l.get().FindAllSubmatch(b, n)
}
func (l *lazyRE) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}
func (l *lazyRE) ReplaceAll(src, repl []byte) []byte { return l.get().ReplaceAll(src, repl) }
func (l *lazyRE) ReplaceAllString(src, repl string) string {
	return l.get().ReplaceAllString(src, repl)
}
func (l *lazyRE) Split(s string, n int) []string { return l.get().Split(s, n) }
