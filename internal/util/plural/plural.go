// Package plural says counts in words: "1 change", "3 changes".
package plural

import "strconv"

// Of says n things: one when n is 1, else many, after the number.
func Of(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
