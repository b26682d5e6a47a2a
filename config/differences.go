package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/loopbreaker/loopbreaker"
)

// Differences lists the keys whose values differ between two effective
// configurations, as "key: before → after", in the order
// `loopbreaker config` lists them. It says what a
// changed loopbreaker.yaml would change, for the person who decides
// whether it applies.
func Differences(before, after loopbreaker.Config) []string {
	sch, err := buildSchema()
	if err != nil {
		return []string{"the configuration (its keys cannot be listed: " + err.Error() + ")"}
	}
	var out []string
	for _, lf := range sch.leaves {
		b, a := lf.get(&before), lf.get(&after)
		if reflect.DeepEqual(b, a) {
			continue
		}
		out = append(out, lf.key+": "+shown(b)+" → "+shown(a))
	}
	return out
}

// shown is a value as Differences says it: a long one cut short.
func shown(v any) string {
	s := formatValue(v)
	if s == "" {
		return `""`
	}
	if r := []rune(s); len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return s
}

// InForce is the configuration a session runs with: kept, the one it
// started with (as JSON, kept in its state), when there is one, else
// onDisk, what the files say now. changed lists what the files would
// change (Differences), none when they agree. A key the kept one does not
// hold (kept by an older version) has its default. A kept configuration
// that cannot be read (a key this version does not know, a value out of
// range) is an error: the caller must not guess.
func InForce(onDisk loopbreaker.Config, kept []byte) (cfg loopbreaker.Config, changed []string, err error) {
	if kept == nil {
		return onDisk, nil, nil
	}
	k := loopbreaker.Defaults()
	d := json.NewDecoder(bytes.NewReader(kept))
	d.DisallowUnknownFields()
	if err := d.Decode(&k); err != nil {
		return onDisk, nil, fmt.Errorf("the configuration kept in the state cannot be read: %w", err)
	}
	if err := k.Validate(); err != nil {
		return onDisk, nil, fmt.Errorf("the configuration kept in the state is not valid: %w", err)
	}
	return k, Differences(k, onDisk), nil
}
