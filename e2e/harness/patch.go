package harness

import (
	"fmt"
	"strings"
)

// The apply_patch grammar Codex and Cline (with a GPT model) speak.

// FixLine is an apply_patch that replaces the line old of file by new.
func FixLine(file, old, new string) string {
	return fmt.Sprintf("*** Begin Patch\n*** Update File: %s\n@@\n-%s\n+%s\n*** End Patch\n", file, old, new)
}

// AddFile is an apply_patch that creates file with content.
func AddFile(file, content string) string {
	return "*** Begin Patch\n*** Add File: " + file + "\n" + PlusLines(content) + "*** End Patch\n"
}

// PlusLines is content as a patch's added lines.
func PlusLines(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n") {
		b.WriteString("+" + strings.TrimSuffix(l, "\n") + "\n")
	}
	return b.String()
}
