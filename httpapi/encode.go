package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breakerserver"
)

// errorBody is every error's JSON: {"error": {"code", "message", "fields"}}.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	// Code is stable, for programs; Message says what to fix, for people.
	Code    string `json:"code"`
	Message string `json:"message"`
	// Fields names what is wrong with each invalid field.
	Fields map[string]string `json:"fields,omitempty"`
}

func encode(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, code, msg string, fields map[string]string) {
	encode(w, status, errorBody{Error: errorDetail{Code: code, Message: msg, Fields: fields}})
}

// validator is a request that can check itself after decoding.
type validator interface {
	// problems lists what is wrong by field; empty when valid.
	problems() map[string]string
}

// decode reads one JSON object of type T from the body: size-limited,
// strict (unknown fields are errors), then validated. It writes the error
// response itself and reports false on failure. An empty body is allowed
// when emptyOK, and decodes as T's zero value.
func decode[T validator](w http.ResponseWriter, r *http.Request, maxBytes int64, emptyOK bool, bufs *answerBuffers) (T, bool) {
	var v T
	// Exactly application/json (a charset parameter aside): a web page on
	// another site can send text/plain, forms or no Content-Type at all
	// without a CORS preflight, never application/json.
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		mt, _, err := mime.ParseMediaType(ct)
		if ct == "" || err != nil || mt != "application/json" {
			msg := fmt.Sprintf("Content-Type %q is not application/json: send the body as application/json", ct)
			if ct == "" {
				msg = "no Content-Type: send the body with Content-Type: application/json (even an empty one)"
			}
			writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", msg, nil)
			return v, false
		}
	}
	// The whole body first (bounded), into a reused buffer: the usual
	// plain one is read without encoding/json (parseFlat); any other is
	// decoded as it streamed in, its read error where it came.
	buf := bufs.get()
	defer bufs.put(buf)
	data, readErr := readBody(http.MaxBytesReader(w, r.Body, maxBytes), *buf)
	*buf = data[:0]
	f, flat := any(&v).(flatRequest)
	if !flat || readErr != nil || !parseFlat(data, f) {
		var ok bool
		if v, ok = decodeJSON[T](w, data, readErr, maxBytes, emptyOK); !ok {
			return v, false
		}
	}
	if p := v.problems(); len(p) > 0 {
		writeError(w, http.StatusUnprocessableEntity, "invalid_request", "the request has invalid fields: "+summary(p), p)
		return v, false
	}
	return v, true
}

// decodeJSON decodes data, a body as far as it was read before readErr
// (nil: to its end), with encoding/json: strictly (unknown fields are
// errors), exactly one value. It writes the error response itself and
// reports false on failure.
func decodeJSON[T any](w http.ResponseWriter, data []byte, readErr error, maxBytes int64, emptyOK bool) (T, bool) {
	var v T
	var body io.Reader = bytes.NewReader(data)
	if readErr != nil {
		body = io.MultiReader(body, failingReader{readErr})
	}
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	err := dec.Decode(&v)
	if err == nil {
		// Exactly one object: trailing data is a client bug.
		if err2 := dec.Decode(&struct{}{}); !errors.Is(err2, io.EOF) {
			var tooBig *http.MaxBytesError
			if errors.As(err2, &tooBig) {
				err = err2
			} else {
				writeError(w, http.StatusBadRequest, "malformed_json", "the body holds more than one JSON value: send exactly one object", nil)
				return v, false
			}
		}
	}
	if errors.Is(err, io.EOF) && emptyOK {
		err = nil
	}
	if err != nil {
		status, code, msg := decodeError(err, maxBytes, reflect.TypeFor[T]())
		writeError(w, status, code, msg, nil)
		return v, false
	}
	return v, true
}

// readBody reads r to its end (or its first error) into buf.
func readBody(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// failingReader fails with err: the read error that ended a body, after
// what was read of it.
type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

// decodeError explains a decoding error.
func decodeError(err error, maxBytes int64, t reflect.Type) (int, string, string) {
	var tooBig *http.MaxBytesError
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge, "body_too_large",
			fmt.Sprintf("the body is larger than %d bytes (server.max_body_bytes): send less", maxBytes)
	case errors.Is(err, io.EOF):
		return http.StatusBadRequest, "empty_body", "the body is empty: send a JSON object (see /openapi.yaml)"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return http.StatusBadRequest, "malformed_json", "the body ends in the middle of the JSON: send a whole object"
	case errors.As(err, &syntax):
		return http.StatusBadRequest, "malformed_json", fmt.Sprintf("the body is not valid JSON at byte %d: %v", syntax.Offset, err)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return http.StatusBadRequest, "wrong_type", fmt.Sprintf("the body must be a JSON object, not a %s", typ.Value)
		}
		return http.StatusBadRequest, "wrong_type", fmt.Sprintf("field %q must be %s, not %s", field, kindName(typ.Type), typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.TrimPrefix(err.Error(), "json: unknown field ")
		return http.StatusBadRequest, "unknown_field",
			fmt.Sprintf("unknown field %s: remove it (known fields: %s)", name, strings.Join(jsonFields(t, ""), ", "))
	}
	return http.StatusBadRequest, "malformed_json", "the body cannot be read as JSON: " + err.Error()
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Int, reflect.Int64, reflect.Float64:
		return "a number"
	}
	return "a " + t.Kind().String()
}

// jsonFields lists the JSON names of t's fields, nested ones dotted.
func jsonFields(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, prefix+name)
		if f.Type.Kind() == reflect.Struct && f.Type.PkgPath() != "time" {
			out = append(out, jsonFields(f.Type, prefix+name+".")...)
		}
	}
	return out
}

func summary(p map[string]string) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + " " + p[k]
	}
	return strings.Join(parts, "; ")
}

// managerError answers an error of the scoped breakers.
func managerError(w http.ResponseWriter, err error) {
	var inv *breakerserver.InvalidError
	switch {
	case errors.As(err, &inv):
		writeError(w, http.StatusUnprocessableEntity, "invalid_request", "the request has invalid fields: "+summary(inv.Fields), inv.Fields)
	case errors.Is(err, breakerserver.ErrNoBreaker):
		writeError(w, http.StatusUnprocessableEntity, "no_breaker", err.Error(), nil)
	case errors.Is(err, breakerserver.ErrUnknownScope):
		writeError(w, http.StatusNotFound, "unknown_scope", err.Error(), nil)
	case errors.Is(err, lb.ErrUnconfirmed):
		// Sent to the store, which did not answer: it may have been
		// applied. Not a 503, which clients may resend on their own.
		writeError(w, http.StatusGatewayTimeout, "outcome_unknown", err.Error(), nil)
	case errors.Is(err, breakerserver.ErrUnavailable), errors.Is(err, lb.ErrStoreUnavailable):
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, "store_unavailable", err.Error(), nil)
	case errors.Is(err, breakerserver.ErrClosed):
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, "shutting_down", "the server is shutting down: retry against its next start", nil)
	case errors.Is(err, lb.ErrCorruptState):
		writeError(w, http.StatusInternalServerError, "corrupt_state", err.Error(), nil)
	case errors.Is(err, lb.ErrInvariant):
		writeError(w, http.StatusInternalServerError, "invariant_violated", err.Error(), nil)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		writeError(w, http.StatusServiceUnavailable, "canceled", "the request was canceled before it finished: "+err.Error(), nil)
	default:
		writeError(w, http.StatusInternalServerError, "internal", err.Error(), nil)
	}
}
