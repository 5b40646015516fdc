package csvfile

import (
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/internal/textenc"
)

// Choices returns the words of the keys that take one of a few
// (source.Chooser): the delimiters delimiter reads and the encodings.
func (c *Config) Choices() map[string]source.Choice {
	return map[string]source.Choice{
		"delimiter": {Words: []string{"auto", ",", ";", "tab", "\t", `\t`}},
		"encoding":  {Words: textenc.Words(), AnyCase: true},
		"shortRows": {Words: []string{ShortRowsRefuse, ShortRowsEmpty}},
	}
}
