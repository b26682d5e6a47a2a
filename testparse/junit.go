package testparse

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
)

// ParseJUnitXML parses JUnit XML reports (Maven Surefire, Gradle, pytest
// --junitxml, go-junit-report, jest-junit...): <testsuites> or a single
// <testsuite>, possibly several reports one after the other. Names are
// "classname.name", or "name" when there is no classname. <failure> and
// <error> are failures; pytest's "collection failure" error is a
// collection failure of the module. It reads the XML as a stream.
func parseJUnitXML(output []byte) (Result, bool) {
	c := collector{framework: FrameworkJUnit}
	start := bytes.Index(output, []byte("<"))
	if start < 0 {
		return Result{}, false
	}
	d := xml.NewDecoder(bytes.NewReader(output[start:]))
	d.Strict = false
	// Reports declare latin-1 and the like; bytes pass through as they are.
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }

	var (
		inCase              bool
		name, class         string
		outcome             string // "", "failure", "error", "skipped"
		collection          bool
		detail              capText
		inDetail            bool
		detailType, message string
	)
	for {
		tok, err := d.Token()
		if err != nil {
			break // io.EOF, or garbage after what could be read
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "testcase":
				inCase = true
				name, class, outcome, collection, message, detailType = attr(t, "name"), attr(t, "classname"), "", false, "", ""
				detail = capText{}
			case "failure", "error", "skipped":
				if !inCase {
					continue
				}
				if outcome == "" || outcome == "skipped" {
					outcome = t.Name.Local
					message, detailType = attr(t, "message"), attr(t, "type")
					collection = t.Name.Local == "error" && message == "collection failure"
				}
				inDetail = t.Name.Local != "skipped"
			}
		case xml.CharData:
			if inDetail {
				detail.add(t)
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "testsuite", "testsuites":
				c.recognised = true // a complete report, perhaps of no tests
			case "failure", "error", "skipped":
				inDetail = false
			case "testcase":
				if !inCase {
					continue
				}
				inCase = false
				full := name
				if class != "" {
					full = class + "." + name
				}
				switch outcome {
				case "":
					c.add(full, true, "")
				case "skipped":
					c.skip()
				default:
					msg := junitMessage(message, detailType, detail.String())
					if collection {
						c.infraFailure(InfraCollection, full, msg)
					} else {
						c.add(full, false, msg)
					}
				}
			}
		}
	}
	return c.result()
}

func junitMessage(message, typ, text string) string {
	text = strings.TrimSpace(text)
	head := message
	if typ != "" && !strings.Contains(message, typ) && !strings.Contains(text, typ) {
		head = strings.TrimSpace(typ + ": " + message)
	}
	switch {
	case head == "":
		return truncate(text)
	case text == "" || strings.Contains(text, message):
		if text == "" {
			return truncate(head)
		}
		return truncate(text)
	}
	return truncate(head + "\n" + text)
}

func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}
