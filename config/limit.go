package config

import (
	"errors"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Limit is a safety limit written as a count ("50") or as a percentage of a
// total ("10%"). A limit of 0 means no limit; "0%" is refused, as it reads
// as "none allowed".
type Limit struct {
	N       int  // the count, or the percentage when Percent
	Percent bool // N is a percentage
}

var (
	errLimit       = errors.New(`must be a whole number (50) or a percentage ("10%")`)
	errZeroPercent = errors.New(`"0%" is ambiguous: write 0 for no limit, or a percentage from 1% up (a limit that allows nothing is policy "preserve")`)
)

// ParseLimit reads "50" or "10%".
func ParseLimit(s string) (Limit, error) {
	s = strings.TrimSpace(s)
	num, pct := strings.CutSuffix(s, "%")
	n, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil || n < 0 || (pct && n > 100) {
		return Limit{}, errLimit
	}
	if pct && n == 0 {
		return Limit{}, errZeroPercent
	}
	return Limit{N: n, Percent: pct}, nil
}

// UnmarshalYAML reads a count or a percentage string.
func (l *Limit) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		// A TypeError lets the decoder go on with the other keys.
		return &yaml.TypeError{Errors: []string{errLimit.Error()}}
	}
	v, err := ParseLimit(n.Value)
	if err != nil {
		return &yaml.TypeError{Errors: []string{err.Error()}}
	}
	*l = v
	return nil
}

// MarshalYAML writes the limit as it would be read.
func (l Limit) MarshalYAML() (any, error) { return l.String(), nil }

// IsSet reports whether the limit limits anything.
func (l Limit) IsSet() bool { return l.N > 0 }

// Of returns the limit as a count for a total (a percentage rounds down).
func (l Limit) Of(total int) int {
	if l.Percent {
		return total * l.N / 100
	}
	return l.N
}

// String returns the limit as it is written: "50" or "10%".
func (l Limit) String() string {
	if l.Percent {
		return strconv.Itoa(l.N) + "%"
	}
	return strconv.Itoa(l.N)
}
