//go:build !windows

package main

// asService reports false: only Windows has a Service Control Manager.
func asService([]string) (int, bool) { return 0, false }
