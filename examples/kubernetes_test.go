package examples

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"gopkg.in/yaml.v3"
)

// podSpec is the part of a pod template the test checks.
type podSpec struct {
	AutomountServiceAccountToken *bool `yaml:"automountServiceAccountToken"`
	Containers                   []struct {
		Image           string `yaml:"image"`
		ImagePullPolicy string `yaml:"imagePullPolicy"`
	} `yaml:"containers"`
}

// manifest is a Deployment or a CronJob, with the pod spec where each
// keeps it.
type manifest struct {
	Kind string `yaml:"kind"`
	Spec struct {
		Template struct {
			Spec podSpec `yaml:"spec"`
		} `yaml:"template"`
		JobTemplate struct {
			Spec struct {
				Template struct {
					Spec podSpec `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"spec"`
		} `yaml:"jobTemplate"`
	} `yaml:"spec"`
}

// TestKubernetesManifests: the workloads run the image the README builds
// (`docker build -t orgsync .`) without pulling it when present, and mount
// no service account token (orgsync never calls the Kubernetes API).
func TestKubernetesManifests(t *testing.T) {
	want := map[string]string{"cronjob.yaml": "CronJob", "deployment.yaml": "Deployment"}
	for file, kind := range want {
		data, err := os.ReadFile(filepath.Join("kubernetes", file))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var m manifest
			if err := dec.Decode(&m); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if m.Kind != kind {
				continue
			}
			found = true
			pod := m.Spec.Template.Spec
			if kind == "CronJob" {
				pod = m.Spec.JobTemplate.Spec.Template.Spec
			}
			if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
				t.Errorf("%s: automountServiceAccountToken is not false", file)
			}
			if len(pod.Containers) != 1 || pod.Containers[0].Image != "orgsync:latest" || pod.Containers[0].ImagePullPolicy != "IfNotPresent" {
				t.Errorf("%s: containers %+v, want the image orgsync:latest, pulled if not present", file, pod.Containers)
			}
		}
		if !found {
			t.Errorf("%s: no %s", file, kind)
		}
	}
}
