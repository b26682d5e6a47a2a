package errsig

import "strings"

// rewrite is the second pass: one left-to-right scan over cleaned text that
// replaces volatile tokens by placeholders.
//
// Why it is idempotent, which FuzzNormalize checks:
//   - patterns start only at a word start (the previous output byte is not a
//     letter, digit or '_') or at a punctuation byte, and context to the
//     left is always read from the output, which a second pass reproduces;
//   - placeholders hold no digits, no hex run and no unit a pattern needs,
//     so none matches again;
//   - a replaced token is followed by a non-word byte, so a placeholder
//     never changes whether its neighbour stands at a word boundary;
//   - optional parts (a fraction, a zone) are tried longest first and
//     dropped when they do not end at a boundary, so a match never depends
//     on text after it that a later rewrite may change (see timeEnd);
//   - no placeholder is longer than the text it replaces, and none starts
//     or ends with a space.
func rewrite(in []byte) []byte {
	w := rewriter{in: in, out: newBuffer(len(in))}
	for i := 0; i < len(in); {
		i = w.step(i)
	}
	return w.out.bytes()
}

type rewriter struct {
	in  []byte
	out buffer
}

// at returns the input byte at j, or 0 past the end. Cleaned text holds no
// NUL, and 0 is no word byte, so the end of the text is a boundary.
func (w *rewriter) at(j int) byte {
	if j < len(w.in) {
		return w.in[j]
	}
	return 0
}

// prev returns the last output byte; the start of the text counts as a
// line start.
func (w *rewriter) prev() byte {
	if w.out.n == 0 {
		return '\n'
	}
	return w.out.b[w.out.n-1]
}

func (w *rewriter) emit(s string) { w.out.write(s) }

// step rewrites or copies what starts at i and returns where to go on.
func (w *rewriter) step(i int) int {
	c := w.in[i]
	p := w.prev()
	var j int
	switch {
	case isWord(c):
		if !isWord(p) {
			j = w.wordStart(i, p)
		}
		if j == 0 {
			return w.copyWord(i)
		}
		return j
	case c == '/':
		if !isPathByte(p) {
			j = w.unixTemp(i)
		}
	case c == ':':
		j = w.lineOrPort(i)
	case c == '+':
		if !isWord(p) {
			j = w.pcOffset(i)
		}
	case c == '[':
		j = w.bracketPID(i, p)
	case c == '(':
		j = w.parenLineCol(i)
	}
	if j > 0 {
		return j
	}
	// Copy the byte and the run of bytes after it that start no pattern.
	j = i + 1
	for j < len(w.in) && isInert(w.in[j]) {
		j++
	}
	w.out.writeBytes(w.in[i:j])
	return j
}

// isInert reports whether no pattern starts at b, whatever precedes it.
func isInert(b byte) bool {
	return !isWord(b) && b != '/' && b != ':' && b != '+' && b != '[' && b != '('
}

func (w *rewriter) copyWord(i int) int {
	j := i + 1
	for j < len(w.in) && isWord(w.in[j]) {
		j++
	}
	w.out.writeBytes(w.in[i:j])
	return j
}

// wordStart tries the patterns that start a word. It returns the index
// after the rewritten token, or 0.
func (w *rewriter) wordStart(i int, p byte) int {
	c := w.in[i]
	// A number right after a dot is part of a version or an address.
	numeric := isDigit(c) && p != '.'
	if c == '0' && w.at(i+1)|0x20 == 'x' {
		if j := w.address(i); j > 0 {
			return j
		}
	}
	if numeric {
		if j := w.timestamp(i); j > 0 {
			return j
		}
		if j := w.duration(i); j > 0 {
			return j
		}
	}
	if isHex(c) {
		if j := w.uuid(i); j > 0 {
			return j
		}
		if j := w.hexID(i); j > 0 {
			return j
		}
	}
	if numeric {
		return w.countedNumber(i, p)
	}
	if isLetter(c) && w.at(i+1) == ':' {
		return w.windowsTemp(i)
	}
	return 0
}

// ---- numbers, timestamps, durations ----

func (w *rewriter) digitsEnd(j int) int {
	for j < len(w.in) && isDigit(w.in[j]) {
		j++
	}
	return j
}

func (w *rewriter) nDigits(j, n int) bool { return w.digitsEnd(j) == j+n }

// timestamp rewrites a date with or without a time, an access-log
// timestamp, or a clock time with the calendar date written before it.
func (w *rewriter) timestamp(i int) int {
	if j, withTime := w.date(i); j > 0 {
		if withTime {
			w.emit("<time>")
		} else {
			w.emit("<date>")
		}
		return j
	}
	if j := w.accessLogTime(i); j > 0 {
		w.emit("<time>")
		return j
	}
	if j := w.timeEnd(i, true); j > 0 {
		w.dropDatePrefix()
		w.emit("<time>")
		return j
	}
	return 0
}

// date matches 2026-11-21 or 2026/11/21, optionally followed by a time
// (T17:21:49.123Z, " 17:21:49,123", " 17:21").
func (w *rewriter) date(i int) (end int, withTime bool) {
	if !w.nDigits(i, 4) {
		return 0, false
	}
	sep := w.at(i + 4)
	if sep != '-' && sep != '/' {
		return 0, false
	}
	if !w.nDigits(i+5, 2) || w.at(i+7) != sep || !w.nDigits(i+8, 2) {
		return 0, false
	}
	j := i + 10
	if t := w.at(j); t == 'T' || t == ' ' || t == '_' {
		if k := w.timeEnd(j+1, false); k > 0 {
			return k, true
		}
	}
	if isWord(w.at(j)) {
		return 0, false
	}
	return j, false
}

// accessLogTime matches 21/Nov/2026:17:21:49 +0000.
func (w *rewriter) accessLogTime(i int) int {
	if !w.nDigits(i, 2) || w.at(i+2) != '/' || !isMonth(w.in[min(i+3, len(w.in)):]) ||
		w.at(i+6) != '/' || !w.nDigits(i+7, 4) || w.at(i+11) != ':' {
		return 0
	}
	return w.timeEnd(i+12, true)
}

// timeEnd returns the end of a clock time at j with its zone, or 0:
// H:MM:SS or HH:MM:SS with an optional fraction (".123", ",123"); seconds
// are optional after a date.
//
// Optional parts are tried longest first and each is kept only if what
// follows is a boundary; otherwise a shorter form is tried. Taking them
// greedily would break idempotence: in "17:21:49,5abcdef12" the fraction
// fails, the text after it is rewritten to ",<hex>", and a second pass
// would then see a time that the first pass did not.
func (w *rewriter) timeEnd(j int, needSeconds bool) int {
	h := w.digitsEnd(j)
	if h == j || h-j > 2 || w.at(h) != ':' || !w.nDigits(h+1, 2) {
		return 0
	}
	var bases [2]int
	n := 0
	if m := h + 3; w.at(m) == ':' && w.nDigits(m+1, 2) {
		bases[n] = m + 3
		n++
	}
	if !needSeconds {
		bases[n] = h + 3
		n++
	}
	for _, k := range bases[:n] {
		if f := w.at(k); (f == '.' || f == ',') && isDigit(w.at(k+1)) {
			if z := w.zone(w.digitsEnd(k + 1)); !isWord(w.at(z)) {
				return z
			}
		}
		if z := w.zone(k); !isWord(w.at(z)) {
			return z
		}
	}
	return 0
}

// zone extends a time ending at k over its zone and what Go and date(1)
// print after it: Z, +02:00, -0700, " +0000 UTC", " m=+0.001", " MST 2026".
// It returns k when there is none; every extension it takes ends at a
// boundary.
func (w *rewriter) zone(k int) int {
	switch w.at(k) {
	case 'Z':
		if !isWord(w.at(k + 1)) {
			k++
		}
	case '+', '-':
		if w.nDigits(k+1, 4) && !isWord(w.at(k+5)) { // +0200
			k += 5
		} else if w.nDigits(k+1, 2) {
			if w.at(k+3) == ':' && w.nDigits(k+4, 2) && !isWord(w.at(k+6)) { // +02:00
				k += 6
			} else if !isWord(w.at(k + 3)) { // +02
				k += 3
			}
		}
	}
	for n := 0; n < 3 && w.at(k) == ' '; n++ {
		m := k + 1
		switch c := w.at(m); {
		case (c == '+' || c == '-') && w.nDigits(m+1, 4) && !isWord(w.at(m+5)):
			k = m + 5
		case isUpper(c):
			e := m
			for isUpper(w.at(e)) {
				e++
			}
			switch {
			case e-m < 3 || e-m > 4:
				return k
			case w.at(e) == ' ' && w.nDigits(e+1, 4) && !isWord(w.at(e+5)):
				k = e + 5 // a zone and the year, as date(1) prints them
			case (string(w.in[m:e]) == "UTC" || string(w.in[m:e]) == "GMT") && !isWord(w.at(e)):
				k = e
			default:
				return k
			}
		case c == 'm' && w.at(m+1) == '=' && (w.at(m+2) == '+' || w.at(m+2) == '-') && isDigit(w.at(m+3)):
			e := w.digitsEnd(m + 3)
			if w.at(e) == '.' && isDigit(w.at(e+1)) {
				if f := w.digitsEnd(e + 1); !isWord(w.at(f)) {
					e = f
				}
			}
			if isWord(w.at(e)) {
				return k
			}
			k = e
		default:
			return k
		}
	}
	return k
}

// dropDatePrefix removes a calendar date the output ends with ("Nov 21 ",
// "Mon, 21 Nov 2026 ", "Nov 21, 2026 "), so that a clock time written after
// it becomes one placeholder with it.
func (w *rewriter) dropDatePrefix() {
	const maxTokens = 4
	var start, end [maxTokens]int // nearest token first
	out := w.out.bytes()
	n := 0
	for e := len(out); n < maxTokens && e > 0 && out[e-1] == ' '; n++ {
		te := e - 1
		s := te
		for s > 0 && te-s < 9 && out[s-1] != ' ' && out[s-1] != '\n' {
			s--
		}
		if s == te || s > 0 && out[s-1] != ' ' && out[s-1] != '\n' {
			break // an empty or a long token: no part of a date
		}
		start[n], end[n] = s, te
		e = s
	}
	tok := func(k int) []byte { return out[start[k]:end[k]] }

	// Tokens nearer than the farthest one must match exactly; the farthest
	// may keep leading punctuation such as "[".
	var used, prefix int
	switch {
	case n >= 3 && isYear(tok(0)) && len(tok(1)) == 3 && isMonth(tok(1)) && isDay(tok(2), false):
		used = 3 // 21 Nov 2026
	case n >= 3 && isYear(tok(0)) && isDay(tok(1), true) && len(tok(2)) >= 3 && isMonth(tok(2)[len(tok(2))-3:]):
		used = 3 // Nov 21, 2026
		prefix = len(tok(2)) - 3
	case n >= 2 && isDay(tok(0), false) && len(tok(1)) >= 3 && isMonth(tok(1)[len(tok(1))-3:]):
		used = 2 // Nov 21
		prefix = len(tok(1)) - 3
	default:
		return
	}
	if prefix > 0 && isWord(out[start[used-1]+prefix-1]) {
		return
	}
	if prefix == 0 && n > used {
		if t := tok(used); len(t) >= 3 {
			name := t
			if name[len(name)-1] == ',' {
				name = name[:len(name)-1]
			}
			if len(name) >= 3 && isWeekday(name[len(name)-3:]) {
				p := len(name) - 3
				if p == 0 || !isWord(name[p-1]) {
					used++
					prefix = p
				}
			}
		}
	}
	w.out.n = start[used-1] + prefix
}

// duration rewrites 1.234s, 150ms, 2m3s, 1h0m0.5s, 3.2 seconds, 150 ms.
func (w *rewriter) duration(i int) int {
	j := w.number(i)
	if u := w.shortUnit(j); u > 0 {
		k := j + u
		for isDigit(w.at(k)) {
			e := w.number(k)
			v := w.shortUnit(e)
			if v == 0 {
				return 0
			}
			k = e + v
		}
		if !isWord(w.at(k)) {
			w.emit("Ns")
			return k
		}
	}
	k := j
	if w.at(k) == ' ' {
		k++
	}
	if e := w.longUnit(k, k > j); e > 0 && !isWord(w.at(e)) {
		w.emit("Ns")
		return e
	}
	return 0
}

// number matches digits with an optional fraction.
func (w *rewriter) number(i int) int {
	j := w.digitsEnd(i)
	if w.at(j) == '.' && isDigit(w.at(j+1)) {
		j = w.digitsEnd(j + 1)
	}
	return j
}

// shortUnit returns the length of the Go-style unit at j: ns, us, µs, ms,
// h, m or s.
func (w *rewriter) shortUnit(j int) int {
	switch w.at(j) {
	case 'n', 'u':
		if w.at(j+1) == 's' {
			return 2
		}
	case 'm':
		if w.at(j+1) == 's' {
			return 2
		}
		return 1
	case 'h', 's':
		return 1
	case 0xc2, 0xce: // µ (U+00B5) and μ (U+03BC)
		if n := w.at(j + 1); (n == 0xb5 || n == 0xbc) && w.at(j+2) == 's' {
			return 3
		}
	}
	return 0
}

// longUnit returns the end of a spelled-out unit at j (seconds, msec,
// minutes...) or, after a space, of a short one ("1.234 s", "150 ms").
func (w *rewriter) longUnit(j int, spaced bool) int {
	e := j
	for e < len(w.in) && w.in[e] >= 'a' && w.in[e] <= 'z' {
		e++
	}
	switch string(w.in[j:e]) {
	case "seconds", "second", "secs", "sec",
		"milliseconds", "millisecond", "msecs", "msec",
		"microseconds", "microsecond", "nanoseconds", "nanosecond",
		"minutes", "minute", "mins", "min", "hours", "hour", "hrs", "hr":
		return e
	case "s", "ms", "us", "ns":
		if spaced {
			return e
		}
	case "":
		if spaced && w.shortUnit(j) == 3 {
			return j + 3
		}
	}
	return 0
}

// countedNumber rewrites an integer that counts something volatile: a PID,
// a goroutine or thread id, a line or column number, a source gutter
// ("12 |") or a line:column at the start of a line ("12:5 error").
func (w *rewriter) countedNumber(i int, p byte) int {
	e := w.digitsEnd(i)
	if isWord(w.at(e)) {
		return 0
	}
	if p == '\n' {
		if w.at(e) == ' ' && w.at(e+1) == '|' {
			w.emit("N")
			return e
		}
		if w.at(e) == ':' && isDigit(w.at(e+1)) {
			if f := w.digitsEnd(e + 1); w.at(f) == ' ' || w.at(f) == '\n' || w.at(f) == 0 {
				w.emit("N:N")
				return f
			}
		}
	}
	if w.afterCounterWord() {
		w.emit("N")
		return e
	}
	return 0
}

// afterCounterWord reports whether the output ends with a word that names
// a volatile count: "pid 12", "PID=12", "goroutine 7", "line: 42",
// "(node:1234)".
func (w *rewriter) afterCounterWord() bool {
	o := w.out.bytes()
	n := len(o)
	colon := false
	switch {
	case n == 0:
		return false
	case o[n-1] == ' ':
		n--
		if n > 0 && o[n-1] == ':' {
			n--
		}
	case o[n-1] == '=':
		n--
	case o[n-1] == ':':
		n--
		colon = true
	default:
		return false
	}
	s := n
	for s > 0 && isLetter(o[s-1]) && n-s < 10 {
		s--
	}
	if s == n || (s > 0 && isWord(o[s-1])) {
		return false
	}
	word := string(o[s:n])
	switch {
	case strings.EqualFold(word, "pid"), strings.EqualFold(word, "ppid"), strings.EqualFold(word, "tid"),
		strings.EqualFold(word, "goroutine"), strings.EqualFold(word, "line"), strings.EqualFold(word, "column"):
		return true
	case colon && word == "node":
		return true
	}
	return false
}

// ---- hex ----

func (w *rewriter) hexEnd(j int) int {
	for j < len(w.in) && isHex(w.in[j]) {
		j++
	}
	return j
}

// address rewrites 0x followed by 6 or more hex digits; shorter values are
// flags and codes that mean something.
func (w *rewriter) address(i int) int {
	e := w.hexEnd(i + 2)
	if e-(i+2) < 6 || isWord(w.at(e)) {
		return 0
	}
	w.emit("<addr>")
	return e
}

// pcOffset rewrites the +0x1d after a Go stack frame.
func (w *rewriter) pcOffset(i int) int {
	if w.at(i+1) != '0' || w.at(i+2)|0x20 != 'x' || !isHex(w.at(i+3)) {
		return 0
	}
	e := w.hexEnd(i + 3)
	if isWord(w.at(e)) {
		return 0
	}
	w.emit("+0xN")
	return e
}

func (w *rewriter) uuid(i int) int {
	j := i
	for g, size := range [...]int{8, 4, 4, 4, 12} {
		if g > 0 {
			if w.at(j) != '-' {
				return 0
			}
			j++
		}
		e := w.hexEnd(j)
		if e-j != size {
			return 0
		}
		j = e
	}
	if isWord(w.at(j)) {
		return 0
	}
	w.emit("<uuid>")
	return j
}

// hexID rewrites git hashes, container and request ids: 7 or more hex
// characters with at least one digit and one letter, so numbers and words
// such as "defaced" stay.
func (w *rewriter) hexID(i int) int {
	var digit, letter bool
	e := i
	for ; e < len(w.in) && isHex(w.in[e]); e++ {
		if isDigit(w.in[e]) {
			digit = true
		} else {
			letter = true
		}
	}
	if e-i < 7 || !digit || !letter || isWord(w.at(e)) {
		return 0
	}
	w.emit("<hex>")
	return e
}

// ---- paths, line numbers, ports, PIDs ----

// unixTemp rewrites a path under a temp root.
func (w *rewriter) unixTemp(i int) int {
	for _, root := range [...]string{"/tmp/", "/var/tmp/", "/var/folders/", "/private/tmp/", "/private/var/folders/", "/dev/shm/"} {
		if w.hasPrefix(i, root) {
			return w.tempTail(i + len(root))
		}
	}
	return 0
}

// windowsTemp rewrites a path under C:\Users\x\AppData\Local\Temp,
// C:\Windows\Temp or C:\Temp.
func (w *rewriter) windowsTemp(i int) int {
	if !isSep(w.at(i + 2)) {
		return 0
	}
	var comps [5][]byte
	j := i + 2
	root := 0
	for n := 0; n < len(comps) && root == 0; n++ {
		for isSep(w.at(j)) {
			j++
		}
		s := j
		for j < len(w.in) && !isSep(w.in[j]) && !isPathStop(w.in[j]) {
			j++
		}
		if j == s {
			return 0
		}
		comps[n] = w.in[s:j]
		switch {
		case n == 0 && (foldEq(comps[0], "Temp") || foldEq(comps[0], "tmp")),
			n == 1 && foldEq(comps[0], "Windows") && foldEq(comps[1], "Temp"),
			n == 4 && foldEq(comps[0], "Users") && foldEq(comps[2], "AppData") &&
				foldEq(comps[3], "Local") && foldEq(comps[4], "Temp"):
			root = j
		}
	}
	if root == 0 || !isSep(w.at(root)) {
		return 0
	}
	for isSep(w.at(root)) {
		root++
	}
	return w.tempTail(root)
}

// tempTail rewrites the temp directories of a path whose root ends at j,
// keeping the file name (unless it is a number, like Go's 001) so that
// different files stay different. "<tmp>/" is never longer than what it
// replaces: the shortest root with a separator after it, "/tmp//", has as
// many bytes.
func (w *rewriter) tempTail(j int) int {
	end := j
	for end < len(w.in) && !isPathStop(w.in[end]) {
		end++
	}
	for end > j && w.in[end-1] == '.' { // a full stop is no part of the path
		end--
	}
	if end == j {
		return 0
	}
	last := -1
	for k := end - 1; k >= j; k-- {
		if isSep(w.in[k]) {
			last = k
			break
		}
	}
	if last < 0 || last == end-1 || allDigits(w.in[last+1:end]) {
		w.emit("<tmp>")
		return end
	}
	// The file name is kept, after a separator that is the same on every
	// platform, and rewritten like any other text.
	w.emit("<tmp>/")
	return last + 1
}

func (w *rewriter) hasPrefix(i int, s string) bool {
	return len(w.in)-i >= len(s) && string(w.in[i:i+len(s)]) == s
}

// lineOrPort rewrites ":12:5" after a file name and ":43567" after a
// loopback host.
func (w *rewriter) lineOrPort(i int) int {
	if !isDigit(w.at(i+1)) || !w.fileOrLoopbackBefore() {
		return 0
	}
	j, n := i, 0
	for w.at(j) == ':' && isDigit(w.at(j+1)) {
		e := w.digitsEnd(j + 1)
		if isWord(w.at(e)) {
			break
		}
		j = e
		n++
	}
	for range n {
		w.emit(":N")
	}
	if n == 0 {
		return 0
	}
	return j
}

// fileOrLoopbackBefore reports whether the output ends with a file name
// (it has a directory or an extension) or a loopback host.
func (w *rewriter) fileOrLoopbackBefore() bool {
	o := w.out.bytes()
	e := len(o)
	if e == 0 {
		return false
	}
	if o[e-1] == ']' {
		return hasSuffix(o, "[::1]") || hasSuffix(o, "[::]")
	}
	s := e
	for s > 0 && isPathByte(o[s-1]) && e-s < 512 {
		s--
	}
	tok := o[s:e]
	if len(tok) == 0 || !isWord(tok[len(tok)-1]) {
		return false
	}
	if isLoopback(tok) {
		return true
	}
	dot := -1
	for k, b := range tok {
		switch b {
		case '/', '\\':
			return true
		case '.':
			dot = k
		}
	}
	if dot >= 0 && dot+1 < len(tok) && isLetter(tok[dot+1]) && isAlnum(tok[dot+1:]) {
		return true
	}
	return hasSuffix(tok, "Makefile") || hasSuffix(tok, "makefile") || hasSuffix(tok, "Dockerfile")
}

// isLoopback reports whether tok ends with localhost, 127.x.x.x or 0.0.0.0.
func isLoopback(tok []byte) bool {
	if hasSuffix(tok, "localhost") {
		return len(tok) == 9 || !isWord(tok[len(tok)-10])
	}
	s := len(tok)
	for s > 0 && (isDigit(tok[s-1]) || tok[s-1] == '.') {
		s--
	}
	if s > 0 && isWord(tok[s-1]) {
		return false
	}
	ip := tok[s:]
	if string(ip) == "0.0.0.0" {
		return true
	}
	if len(ip) < 7 || string(ip[:4]) != "127." {
		return false
	}
	// Four groups of one to three digits.
	groups, run := 1, 0
	for _, b := range ip {
		if b == '.' {
			if run == 0 {
				return false
			}
			groups, run = groups+1, 0
			continue
		}
		if run++; run > 3 {
			return false
		}
	}
	return groups == 4 && run > 0
}

// bracketPID rewrites the PID in "sshd[1234]:".
func (w *rewriter) bracketPID(i int, p byte) int {
	if !isWord(p) && p != '-' && p != '.' || !isDigit(w.at(i+1)) {
		return 0
	}
	e := w.digitsEnd(i + 1)
	if w.at(e) != ']' || w.at(e+1) != ':' {
		return 0
	}
	w.emit("[N]")
	return e + 1
}

// parenLineCol rewrites "(12,5)" after a file name (TypeScript, MSBuild).
func (w *rewriter) parenLineCol(i int) int {
	if !isDigit(w.at(i + 1)) {
		return 0
	}
	e := w.digitsEnd(i + 1)
	if w.at(e) != ',' || !isDigit(w.at(e+1)) {
		return 0
	}
	f := w.digitsEnd(e + 1)
	if w.at(f) != ')' || !w.fileOrLoopbackBefore() {
		return 0
	}
	w.emit("(N,N)")
	return f + 1
}

// ---- byte classes ----

func isDigit(b byte) bool  { return '0' <= b && b <= '9' }
func isUpper(b byte) bool  { return 'A' <= b && b <= 'Z' }
func isLetter(b byte) bool { return 'a' <= b|0x20 && b|0x20 <= 'z' }
func isWord(b byte) bool   { return isDigit(b) || isLetter(b) || b == '_' }
func isHex(b byte) bool    { return isDigit(b) || 'a' <= b|0x20 && b|0x20 <= 'f' }
func isSep(b byte) bool    { return b == '/' || b == '\\' }

// isPathByte reports whether b may be part of a file name.
func isPathByte(b byte) bool {
	return isWord(b) || b >= 0x80 || strings.IndexByte("./\\-~@+", b) >= 0
}

// isPathStop reports whether b ends a path in running text.
func isPathStop(b byte) bool {
	return b == ' ' || b == '\n' || strings.IndexByte("\"'`()[]{}<>,;:|*?!$&=", b) >= 0
}

func isAlnum(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) && !isLetter(c) {
			return false
		}
	}
	return true
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return len(b) > 0
}

func hasSuffix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[len(b)-len(s):]) == s
}

func foldEq(b []byte, s string) bool { return strings.EqualFold(string(b), s) }

// isMonth reports whether b starts with an English month abbreviation.
func isMonth(b []byte) bool { return nameIn(b, "janfebmaraprmayjunjulaugsepoctnovdec") }

func isWeekday(b []byte) bool { return nameIn(b, "montuewedthufrisatsun") }

// nameIn reports whether the first three letters of b, in any case, are
// one of the three-letter names packed in names.
func nameIn(b []byte, names string) bool {
	if len(b) < 3 || !isLetter(b[0]) || !isLetter(b[1]) || !isLetter(b[2]) {
		return false
	}
	a, c, d := b[0]|0x20, b[1]|0x20, b[2]|0x20
	for k := 0; k+3 <= len(names); k += 3 {
		if names[k] == a && names[k+1] == c && names[k+2] == d {
			return true
		}
	}
	return false
}

func isYear(b []byte) bool { return len(b) == 4 && allDigits(b) }

// isDay reports whether b is a day of the month, optionally followed by a
// comma when comma is true.
func isDay(b []byte, comma bool) bool {
	if comma && len(b) > 0 && b[len(b)-1] == ',' {
		b = b[:len(b)-1]
	}
	return len(b) >= 1 && len(b) <= 2 && allDigits(b)
}
