package examples

import (
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	"helm.sh/helm/v3/pkg/releaseutil"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// chartDir is the orgsync-orgs chart.
var chartDir = filepath.Join(kubernetesDir, "orgsync-orgs")

// render renders the chart with Helm's own chart loader and engine (strict:
// a value the templates use that is missing is an error), the values
// files over the chart's values (checked against its values.schema.json
// as helm install does), and decodes each manifest strictly into the
// Kubernetes API types (see decodeStrict).
func render(t *testing.T, valuesFiles ...string) []runtime.Object {
	t.Helper()
	rendered := renderFiles(t, valuesFiles...)
	var objs []runtime.Object
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range rendered {
			if !yield(n) {
				return
			}
		}
	}) {
		if strings.HasPrefix(filepath.Base(name), "_") || strings.TrimSpace(rendered[name]) == "" {
			continue
		}
		manifests := releaseutil.SplitManifests(rendered[name])
		keys := make([]string, 0, len(manifests))
		for k := range manifests {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return manifestIndex(keys[i]) < manifestIndex(keys[j]) })
		for _, k := range keys {
			objs = append(objs, decodeStrict(t, name, []byte(manifests[k]))...)
		}
	}
	return objs
}

// renderFiles renders the chart with Helm's loader and engine (strict),
// the values files over the chart's values (checked against its schema),
// and returns each template's output by name.
func renderFiles(t *testing.T, valuesFiles ...string) map[string]string {
	t.Helper()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatalf("loading the chart: %v", err)
	}
	vals := chartutil.Values{}
	for _, f := range valuesFiles {
		v, err := chartutil.ReadValuesFile(f)
		if err != nil {
			t.Fatal(err)
		}
		vals = chartutil.CoalesceTables(v, vals)
	}
	top, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{Name: "orgsync", Namespace: "orgsync", IsInstall: true}, chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatalf("values %v: %v", valuesFiles, err)
	}
	rendered, err := engine.Engine{Strict: true}.Render(ch, top)
	if err != nil {
		t.Fatalf("rendering with %v: %v", valuesFiles, err)
	}
	return rendered
}

// manifestIndex is the order of a key of releaseutil.SplitManifests
// ("manifest-3").
func manifestIndex(key string) int {
	n := 0
	for _, c := range strings.TrimPrefix(key, "manifest-") {
		n = n*10 + int(c-'0')
	}
	return n
}

// TestOrgsChartRendersWithHelm renders the chart with each values file
// (its own, and those of ci/ over it) and checks every CronJob and the
// claim, as the Kubernetes API types read them.
func TestOrgsChartRendersWithHelm(t *testing.T) {
	defaults := filepath.Join(chartDir, "values.yaml")
	tests := []struct {
		values []string
		jobs   []struct{ name, schedule, args string }
		claim  string // the state claim the jobs mount
		made   bool   // the chart makes it
	}{
		{[]string{defaults}, []struct{ name, schedule, args string }{
			{"orgsync-main", "0 */2 * * *", "plan --orgs main --log-format json"},
			{"orgsync-europe", "30 */2 * * *", "plan --orgs emea,uk --log-format json"},
		}, "orgsync-state", true},
		{[]string{defaults, filepath.Join(chartDir, "ci", "sync-values.yaml")}, []struct{ name, schedule, args string }{
			{"orgsync-main", "0 */2 * * *", "sync --orgs main --log-format json"},
			{"orgsync-emea", "15 */2 * * *", "sync --orgs emea --log-format json"},
			{"orgsync-apac", "45 */4 * * *", "sync --orgs apac,anz --log-format json"},
		}, "orgsync-shared-state", false},
		{[]string{defaults, filepath.Join(chartDir, "ci", "one-job-values.yaml")}, []struct{ name, schedule, args string }{
			{"orgsync-all", "0 */2 * * *", "plan --orgs main,emea,uk --log-format json"},
		}, "orgsync-state", true},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.values[len(tt.values)-1]), func(t *testing.T) {
			var jobs []*batchv1.CronJob
			var claims []*corev1.PersistentVolumeClaim
			for _, o := range render(t, tt.values...) {
				switch o := o.(type) {
				case *batchv1.CronJob:
					jobs = append(jobs, o)
				case *corev1.PersistentVolumeClaim:
					claims = append(claims, o)
				default:
					t.Errorf("the chart renders a %T", o)
				}
			}
			if len(jobs) != len(tt.jobs) {
				t.Fatalf("%d CronJobs, want %d", len(jobs), len(tt.jobs))
			}
			for i, want := range tt.jobs {
				checkCronJob(t, jobs[i], want.name, want.schedule, want.args, tt.claim)
			}
			if made := len(claims) == 1 && claims[0].Name == tt.claim; made != tt.made || len(claims) > 1 {
				t.Errorf("claims %v, want the chart to make %s: %v", claims, tt.claim, tt.made)
			}
		})
	}
}

// checkCronJob checks one CronJob of the chart: its schedule and command,
// that runs never overlap, the pod's hardening, and the configuration,
// secrets and state mounted where orgsync reads them.
func checkCronJob(t *testing.T, j *batchv1.CronJob, name, schedule, args, claim string) {
	t.Helper()
	pod := j.Spec.JobTemplate.Spec.Template.Spec
	if j.Name != name || j.Spec.Schedule != schedule || j.Spec.ConcurrencyPolicy != batchv1.ForbidConcurrent || len(pod.Containers) != 1 {
		t.Fatalf("CronJob %s (schedule %q, %s, %d containers), want %s at %q, runs never overlapping",
			j.Name, j.Spec.Schedule, j.Spec.ConcurrencyPolicy, len(pod.Containers), name, schedule)
	}
	c := pod.Containers[0]
	if got := strings.Join(c.Args, " "); got != args || c.Image == "" {
		t.Errorf("%s runs %q %q, want %q", name, c.Image, got, args)
	}
	if pod.RestartPolicy != corev1.RestartPolicyNever || pod.SecurityContext == nil || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot {
		t.Errorf("%s: the pod may restart in place or run as root", name)
	}
	sc := c.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("%s: the container is not locked down: %+v", name, sc)
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	if mounts["config"] != "/etc/orgsync/orgsync.yaml" || mounts["secrets"] != "/etc/orgsync/secrets" || mounts["state"] != "/var/lib/orgsync" {
		t.Errorf("%s mounts %v", name, mounts)
	}
	for _, v := range pod.Volumes {
		switch {
		case v.Name == "state" && (v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != claim):
			t.Errorf("%s: the state volume is not the claim %s: %+v", name, claim, v.VolumeSource)
		case v.Name == "secrets" && (v.Secret == nil || v.Secret.DefaultMode == nil || *v.Secret.DefaultMode != 0o400):
			t.Errorf("%s: the secrets are not mounted with mode 0400: %+v", name, v.VolumeSource)
		}
	}
}

// TestOrgsChartRefusesBadValues: values the chart's schema refuses fail
// before anything is rendered, as helm install and helm lint fail.
func TestOrgsChartRefusesBadValues(t *testing.T) {
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]chartutil.Values{
		"misspelt key":     {"jbos": []any{}},
		"unknown command":  {"command": "apply"},
		"job without orgs": {"jobs": []any{map[string]any{"name": "main"}}},
		"job name unfit":   {"jobs": []any{map[string]any{"name": "Main Org", "orgs": []any{"main"}}}},
	} {
		if _, err := chartutil.ToRenderValues(ch, bad, chartutil.ReleaseOptions{Name: "orgsync"}, chartutil.DefaultCapabilities); err == nil {
			t.Errorf("%s: the values are accepted", name)
		}
	}
}

// TestOrgsChartPassesHelmLint runs helm lint's checks (Chart.yaml, the
// values and their schema, the templates rendered and parsed, metadata
// names and labels) with each values file: no error, no warning.
func TestOrgsChartPassesHelmLint(t *testing.T) {
	for _, f := range []string{"values.yaml", "ci/sync-values.yaml", "ci/one-job-values.yaml", "ci/monitoring-values.yaml"} {
		vals, err := chartutil.ReadValuesFile(filepath.Join(chartDir, f))
		if err != nil {
			t.Fatal(err)
		}
		linter := lint.AllWithKubeVersion(chartDir, vals, "orgsync", nil)
		for _, m := range linter.Messages {
			if m.Severity >= support.WarningSev {
				t.Errorf("helm lint with %s: %s", f, m)
			}
		}
		if len(linter.Messages) > 0 && linter.HighestSeverity >= support.WarningSev {
			t.Errorf("helm lint with %s: highest severity %d", f, linter.HighestSeverity)
		}
	}
}
