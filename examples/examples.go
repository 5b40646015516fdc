// Package examples holds orgsync's examples, embedded so that `orgsync
// demo` runs without any file of the repository: the example
// configurations with their data (one folder a source kind's variant,
// multiorg/), the simulator's example organization (sim/), and the
// deployment examples (kubernetes/, systemd/, cron/, ci/, monitoring/).
package examples

import "embed"

// FS holds every example folder, whole: a new one (a new source kind's)
// is embedded as it is added.
//
//go:embed */*
var FS embed.FS
