package examples

import (
	"os"
	"path/filepath"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/orgsync/orgsync/internal/util/memlimit"
)

// The largest runs the shipped manifests are sized for, as their comments
// and docs/deployment.md name them.
const (
	largestMembers, largestRows, largestChanges = 1_000_000, 1_000_000, 200_000
	largestFirstLoad                            = 450_000
)

// TestManifestsFitTheirLargestOrganization: every workload the examples
// ship (the CronJob, the Deployment, the chart's CronJobs) gives Go, with
// the share orgsync takes of the container's limit, what the sizing
// formula says the largest runs they name need, and requests what a run
// of the largest organization uses when little changes.
func TestManifestsFitTheirLargestOrganization(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(kubernetesDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, obj := range decodeStrict(t, file, data) {
			switch o := obj.(type) {
			case *batchv1.CronJob:
				checkMemory(t, file, o.Spec.JobTemplate.Spec.Template.Spec)
			case *appsv1.Deployment:
				checkMemory(t, file, o.Spec.Template.Spec)
			default:
				continue
			}
			checked++
		}
	}
	for _, o := range render(t, filepath.Join(chartDir, "values.yaml")) {
		if j, ok := o.(*batchv1.CronJob); ok {
			checkMemory(t, "the chart's "+j.Name, j.Spec.JobTemplate.Spec.Template.Spec)
			checked++
		}
	}
	if checked < 4 {
		t.Errorf("%d workloads checked, want the CronJobs, the Deployment and the chart's", checked)
	}
}

// checkMemory checks the memory of the pod's containers against the
// largest runs.
func checkMemory(t *testing.T, name string, pod corev1.PodSpec) {
	t.Helper()
	for _, c := range pod.Containers {
		limit, request := c.Resources.Limits.Memory(), c.Resources.Requests.Memory()
		goLimit := uint64(float64(limit.Value()) * memlimit.Share)
		for _, need := range []uint64{memlimit.Estimate(largestMembers, largestRows, largestChanges), memlimit.Estimate(0, largestFirstLoad, largestFirstLoad)} {
			if goLimit < need {
				t.Errorf("%s: a memory limit of %s gives Go %s; the largest runs named need %s", name, limit, memlimit.MiB(goLimit), memlimit.MiB(need))
			}
		}
		if steady := memlimit.Estimate(largestMembers, largestRows, 1000); uint64(request.Value()) < steady {
			t.Errorf("%s: requests %s, a run of the largest organization uses %s", name, request, memlimit.MiB(steady))
		}
	}
}
