package hook

import (
	"bytes"
	"encoding/json"
)

// MarshalNoEscape encodes v as JSON without escaping <, > and &, so that a
// shell command such as `loopbreaker hook claude 2>/dev/null || true`
// reads the same in the settings file as on the command line.
func MarshalNoEscape(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
