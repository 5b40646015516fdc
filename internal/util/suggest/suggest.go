// Package suggest finds, among known names, the one a mistyped name was
// likely meant to be: the "did you mean" of configuration keys and of
// directory groups.
package suggest

import (
	"fmt"
	"strings"
)

// Nearest returns the candidate that differs from name only in letter
// case, dashes or underscores, or by a typo (an edit distance of at most
// one per four letters, at least one), the first of the nearest; "" when
// none is that near, or when name is itself a candidate.
func Nearest(name string, candidates []string) string {
	best, bestDist := "", max(1, len(name)/4)+1
	for _, c := range candidates {
		if c == name {
			return ""
		}
		if d := distance(normal(c), normal(name)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// normal folds the differences that do not count.
func normal(s string) string {
	return strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(s))
}

// distance is the edit distance between a and b, in bytes, a swap of two
// neighbours counting as one edit (the optimal string alignment distance).
func distance(a, b string) int {
	rows := [3][]int{make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)}
	for j := range rows[1] {
		rows[1][j] = j
	}
	for i := 1; i <= len(a); i++ {
		before, prev, cur := rows[0], rows[1], rows[2]
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], before[j-2]+1)
			}
		}
		rows = [3][]int{prev, cur, before}
	}
	return rows[1][len(b)]
}

// DidYouMean returns ` (did you mean "x"?)` when name is a misspelling of
// candidate x (Nearest), else "": the tail of an error message.
func DidYouMean(name string, candidates []string) string {
	if near := Nearest(name, candidates); near != "" {
		return fmt.Sprintf(" (did you mean %q?)", near)
	}
	return ""
}
