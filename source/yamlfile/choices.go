package yamlfile

import (
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/internal/textenc"
)

// Choices returns the words of the keys that take one of a few
// (source.Chooser): the encodings.
func (c *Config) Choices() map[string]source.Choice {
	return map[string]source.Choice{"encoding": {Words: textenc.Words(), AnyCase: true}}
}
