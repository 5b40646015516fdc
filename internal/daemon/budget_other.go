//go:build !unix

package daemon

// connectionBudget is how many connections the endpoints keep open at
// once (a system without descriptor limits: the most).
func connectionBudget() int { return maxConns }
