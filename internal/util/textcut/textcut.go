// Package textcut bounds free text that carries values from outside (a
// directory's names, a server's messages, a command's standard error)
// before it is kept or sent: cut at a character's start, with how much
// was left out, so that one huge value cannot fill a history, a log or a
// chat message.
package textcut

import (
	"unicode/utf8"

	"github.com/orgsync/orgsync/internal/util/plural"
)

// Message is the bound of one message or problem carrying outside values
// (its reason, its record's name), in bytes.
const Message = 2048

// Cut returns s when it has at most max bytes, else its first max bytes
// or fewer (cut at a character's start) and "… (N more bytes)".
func Cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	at := max
	for at > 0 && !utf8.RuneStart(s[at]) {
		at--
	}
	return s[:at] + "… (" + plural.Of(len(s)-at, "more byte", "more bytes") + ")"
}
