package config

import (
	"fmt"
	"strings"
)

// Problem is one thing wrong (or worth a warning) in the configuration: the
// key path (for example "sources[1].ldap.baseDN"), the line of the file it
// is on (0 when unknown) and what is wrong.
type Problem struct {
	Path    string
	Line    int
	Message string
}

// String returns "path (line N): message", or "path: message" when the
// line is not known.
func (p Problem) String() string {
	path := p.Path
	switch {
	case path == "" && p.Line > 0:
		return fmt.Sprintf("line %d: %s", p.Line, p.Message)
	case path == "":
		path = "(top level)"
	}
	if p.Line > 0 {
		return fmt.Sprintf("%s (line %d): %s", path, p.Line, p.Message)
	}
	return fmt.Sprintf("%s: %s", path, p.Message)
}

// Error holds every problem found in a configuration file, so that the user
// can fix them all at once.
type Error struct {
	File     string
	Problems []Problem
	// decoded is the configuration as far as it decoded, for Salvage.
	decoded *Config
}

// salvaged are the sections of a configuration that does not load which
// a failed run still trusts when no problem concerns them: where runs are
// recorded and whom they are told.
var salvaged = []string{"state", "notify"}

// readSections are the sections reading the sources takes.
var readSections = []string{"sources", "mapping", "scope"}

// Salvage returns the configuration as far as it decoded when its state
// directory and notifications are free of problems, so that the failed
// run is still recorded there and told (its organizations, when the
// target sections have problems too, are the one default organization);
// nil when the file did not parse, or a problem concerns those sections.
// Nothing else of it may be used.
func (e *Error) Salvage() *Config { return e.salvage(salvaged) }

// SalvageSources is Salvage for reading the sources: the configuration as
// far as it decoded when its sources, mapping and scope are free of
// problems, so that validate still reads the sources of a file whose
// target is not yet filled in; nil otherwise. Nothing but those sections
// may be used.
func (e *Error) SalvageSources() *Config { return e.salvage(readSections) }

// salvage returns the configuration as far as it decoded when no problem
// concerns sections, nil otherwise.
func (e *Error) salvage(sections []string) *Config {
	if e.decoded == nil {
		return nil
	}
	for _, p := range e.Problems {
		for _, key := range sections {
			if p.Path == key || strings.HasPrefix(p.Path, key+".") || strings.HasPrefix(p.Path, key+"[") {
				return nil
			}
		}
	}
	if len(e.decoded.Targets) == 0 {
		e.decoded.Targets = []NamedTarget{{Name: DefaultTargetName}}
	}
	return e.decoded
}

// Error returns the file, the number of problems and each problem on a
// line of its own.
func (e *Error) Error() string {
	var b strings.Builder
	what := "problems"
	if len(e.Problems) == 1 {
		what = "problem"
	}
	fmt.Fprintf(&b, "%s: %d %s in the configuration:", e.File, len(e.Problems), what)
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}
