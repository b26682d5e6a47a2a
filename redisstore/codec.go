package redisstore

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	lb "github.com/loopbreaker/loopbreaker"
)

// A state value is the BreakerState's JSON object as encoding/json writes
// it but for the times: every time is an integer of Unix nanoseconds (null
// for the zero time); a time that does not fit, or that is not in UTC,
// stays an RFC 3339 string, so that it decodes to the same value. A record
// re-encodes its whole state, and formatting the times of the attempt
// history was a quarter of the client's CPU. This is layout 2
// (SchemaVersion); layout 1, plain encoding/json, was never released.

// stateOpts encode like encoding/json (field names, omitempty, nil slices)
// but for the times, and decode a time either way (integer or string). Built on first use, not at
// start-up: every process of the binary (each hook call) would pay for
// it, and only the Redis store uses it.
var stateOpts = sync.OnceValue(func() json.Options {
	return json.JoinOptions(
		jsonv1.DefaultOptionsV1(),
		json.WithMarshalers(json.MarshalToFunc(encodeTime)),
		json.WithUnmarshalers(json.UnmarshalFromFunc(decodeTime)),
	)
})

// Unix nanoseconds fit an int64 between these years.
var (
	minNanoTime = time.Unix(0, -1<<63+1)
	maxNanoTime = time.Unix(0, 1<<63-1)
)

func encodeTime(enc *jsontext.Encoder, t time.Time) error {
	if t.IsZero() {
		return enc.WriteToken(jsontext.Null)
	}
	if !nanoTime(t) {
		return json.SkipFunc // the RFC 3339 string, offset kept
	}
	return enc.WriteToken(jsontext.Int(t.UnixNano()))
}

// nanoTime tells whether layout 2 writes t as an integer.
func nanoTime(t time.Time) bool {
	_, off := t.Zone()
	return off == 0 && !t.Before(minNanoTime) && !t.After(maxNanoTime)
}

// appendAttempt writes an attempt of the history by hand: the attempts
// are most of a state, and reflection over each was most of a record's
// encoding. It writes the object the generic encoder would (and that
// decodes with it: TestCompactLayoutRoundTrip fills every field, so a
// field added to Attempt and not written here fails it); ok is false for
// anything unusual (a time written as a string, text that is not UTF-8),
// which the caller encodes the generic way.
func appendAttempt(b []byte, a *lb.Attempt) (_ []byte, ok bool) {
	if !a.Time.IsZero() && !nanoTime(a.Time) {
		return b, false
	}
	b = append(b, `{"iteration":`...)
	b = strconv.AppendInt(b, int64(a.Iteration), 10)
	b = append(b, `,"time":`...)
	if a.Time.IsZero() {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, a.Time.UnixNano(), 10)
	}
	var err error
	str := func(name, v string) {
		if v == "" || err != nil {
			return
		}
		b = append(b, `,"`...)
		b = append(b, name...)
		b = append(b, `":`...)
		b, err = jsontext.AppendQuote(b, v)
	}
	strs := func(name string, vs []string) {
		if len(vs) == 0 || err != nil {
			return
		}
		b = append(b, `,"`...)
		b = append(b, name...)
		b = append(b, `":[`...)
		for i, v := range vs {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = jsontext.AppendQuote(b, v); err != nil {
				return
			}
		}
		b = append(b, ']')
	}
	str("phase", string(a.Phase))
	str("slice", a.Slice)
	str("summary", a.Summary)
	strs("files", a.Files)
	strs("failed_tests", a.Failed)
	str("error", a.Error)
	str("signature", a.Signature)
	if err != nil {
		return b, false
	}
	b = append(b, `,"progress":`...)
	b = strconv.AppendBool(b, a.Progress)
	str("progress_reason", a.ProgressReason.String())
	if err != nil {
		return b, false
	}
	b = append(b, `,"epoch":`...)
	b = strconv.AppendInt(b, int64(a.Epoch), 10)
	if a.ToolCall != 0 {
		b = append(b, `,"tool_call":`...)
		b = strconv.AppendInt(b, int64(a.ToolCall), 10)
	}
	if a.ExitCode != nil {
		b = append(b, `,"exit_code":`...)
		b = strconv.AppendInt(b, int64(*a.ExitCode), 10)
	}
	return append(b, '}'), true
}

// writeCompact renders st in layout 2 after what buf holds: the generic
// encoder writes all but the attempts, which appendAttempt adds as the
// object's last member.
func writeCompact(buf *bytes.Buffer, st *lb.BreakerState) error {
	rest := *st
	rest.Attempts = nil
	start := buf.Len()
	if err := json.MarshalWrite(buf, &rest, stateOpts()); err != nil || len(st.Attempts) == 0 {
		return err
	}
	end := start + len(bytes.TrimRight(buf.Bytes()[start:], " \n")) - 1
	if end <= start || buf.Bytes()[end] != '}' {
		return fmt.Errorf("the encoded state does not end its object (%q)", buf.Bytes()[start:])
	}
	buf.Truncate(end) // the closing '}'
	b := append(buf.AvailableBuffer(), `,"attempts":[`...)
	for i := range st.Attempts {
		if i > 0 {
			b = append(b, ',')
		}
		n := len(b)
		var ok bool
		if b, ok = appendAttempt(b, &st.Attempts[i]); !ok {
			one, err := json.Marshal(&st.Attempts[i], stateOpts())
			if err != nil {
				return err
			}
			b = append(b[:n], one...)
		}
	}
	buf.Write(append(b, "]}"...))
	return nil
}

func decodeTime(dec *jsontext.Decoder, t *time.Time) error {
	switch dec.PeekKind() {
	case 'n':
		_, err := dec.ReadToken()
		*t = time.Time{}
		return err
	case '0':
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		// as encoding/json decodes "...Z": UTC, no monotonic reading
		*t = time.Unix(0, tok.Int()).UTC()
		return nil
	}
	return json.SkipFunc // an RFC 3339 string, as encoding/json reads it
}

// encodeState renders st into buf, after what buf holds.
func encodeState(buf *bytes.Buffer, st *lb.BreakerState) error {
	n := buf.Len()
	if err := writeCompact(buf, st); err != nil {
		buf.Truncate(n)
		return fmt.Errorf("redisstore: encode the state of scope %q: %w", st.Scope, err)
	}
	return nil
}

// decodeOpts are stateOpts for reading, without the legacy error
// semantics, which validate a whole value before decoding it: a fifth of
// a state's decoding (50 against 40 µs for 45 attempts), and every client
// decodes each state another client wrote. Only errors differ (partial
// decoding, the first error only): a value that does not decode is
// corrupt either way, and what was decoded of it is dropped.
var decodeOpts = sync.OnceValue(func() json.Options {
	return json.JoinOptions(stateOpts(), jsonv1.ReportErrorsWithLegacySemantics(false))
})

// decodeState reads a state value's body.
//
// The attempts are most of a state, and the decoder grows a slice it is
// given from nothing, doubling: for 45 attempts, 29.6 KB allocated and a
// third of the decoding, against 11 KB. So the slice is made as long as
// the body has attempts first, which the decoder fills in place, with
// room for the attempt a record adds. An attempt begins with
// its iteration, and no JSON string holds that text unescaped: the count
// is the attempts' (a miscount would only size the slice wrongly).
func decodeState(body []byte, st *lb.BreakerState) error {
	if n := bytes.Count(body, attemptStart); n > 0 {
		st.Attempts = make([]lb.Attempt, 0, n+1)
	}
	return json.Unmarshal(body, st, decodeOpts())
}

var attemptStart = []byte(`{"iteration":`)

// decodeEntryJSON reads a journal entry: encoding/json's form, or a
// snapshot entry whose state is in layout 2 (the script appends the
// state value to the snapshot's head when a trim cuts the journal).
func decodeEntryJSON(raw []byte, e *lb.JournalEntry) error {
	if err := stdjson.Unmarshal(raw, e); err == nil {
		return nil
	}
	*e = lb.JournalEntry{}
	if err := json.Unmarshal(raw, e, decodeOpts()); err != nil {
		*e = lb.JournalEntry{} // nothing of a part decoded
		return err
	}
	return nil
}
