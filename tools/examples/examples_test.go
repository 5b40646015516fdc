// Package examples checks orgsync's examples with the tools orgsync's own
// module does not require: the Kubernetes manifests and the Helm chart
// decoded into Kubernetes' API types and rendered and linted by Helm's
// engine, and the GitHub workflow linted by actionlint.
package examples

import "path/filepath"

// examples is orgsync's examples directory, seen from this package.
var examples = filepath.Join("..", "..", "examples")

// kubernetesDir holds the Kubernetes manifests and the chart.
var kubernetesDir = filepath.Join(examples, "kubernetes")
