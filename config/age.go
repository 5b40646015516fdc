package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Age is how long ago, or how long to keep: a duration, also in days
// ("90d", like history --since 7d).
type Age time.Duration

// UnmarshalYAML reads a duration such as 2160h, or days such as 90d.
func (a *Age) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &yaml.TypeError{Errors: []string{errAge.Error()}}
	}
	d, err := ParseAge(n.Value)
	if err != nil {
		return &yaml.TypeError{Errors: []string{err.Error()}}
	}
	*a = Age(d)
	return nil
}

// MarshalYAML writes the age as it would be read.
func (a Age) MarshalYAML() (any, error) { return time.Duration(a).String(), nil }

// maxDays is the most days a time.Duration holds.
const maxDays = int(math.MaxInt64 / int64(24*time.Hour))

// ParseAge reads how far back a history filter goes: a duration, also in
// days ("7d").
func ParseAge(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 || n > maxDays {
			return 0, errAge
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, errAge
	}
	return d, nil
}

// errAge says what an age is.
var errAge = fmt.Errorf("want a duration such as 90m, 24h or 7d")
