package examples

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/entra"
	"github.com/orgsync/orgsync/source/google"
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
	want := map[string]string{"cronjob.yaml": "CronJob", "deployment.yaml": "Deployment",
		"gke-workload-identity.yaml": "CronJob", "aks-workload-identity.yaml": "CronJob"}
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

// keylessManifest is what TestKeylessManifests reads of the workload
// identity examples: the service account, the configuration and the pod.
type keylessManifest struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Annotations map[string]string `yaml:"annotations"`
	} `yaml:"metadata"`
	Data map[string]string `yaml:"data"`
	Spec struct {
		JobTemplate struct {
			Spec struct {
				Template struct {
					Metadata struct {
						Labels map[string]string `yaml:"labels"`
					} `yaml:"metadata"`
					Spec struct {
						ServiceAccountName string `yaml:"serviceAccountName"`
					} `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"spec"`
		} `yaml:"jobTemplate"`
	} `yaml:"spec"`
}

// TestKeylessManifests: the GKE and AKS examples give the pod the
// identity each cloud maps (the annotated service account; AKS's label),
// and their configuration signs in without a key or a secret, valid as
// it is (AKS's identifiers from the variables its webhook sets).
func TestKeylessManifests(t *testing.T) {
	t.Setenv(entra.EnvTenantID, "00000000-0000-0000-0000-000000000001")
	t.Setenv(entra.EnvClientID, "00000000-0000-0000-0000-000000000002")
	t.Setenv(entra.EnvFederatedTokenFile, "/var/run/secrets/azure/tokens/azure-identity-token")
	for file, c := range map[string]struct {
		annotation, label string
		validate          func(block []byte) error
	}{
		"gke-workload-identity.yaml": {"iam.gke.io/gcp-service-account", "", func(b []byte) error {
			var cfg struct{ Google google.Config }
			return validate(b, &cfg, func() (string, []diag.FieldError) { return cfg.Google.Auth, cfg.Google.Validate() }, google.AuthSignJwt)
		}},
		"aks-workload-identity.yaml": {"azure.workload.identity/client-id", "azure.workload.identity/use", func(b []byte) error {
			var cfg struct{ Entra entra.Config }
			return validate(b, &cfg, func() (string, []diag.FieldError) { return cfg.Entra.Auth, cfg.Entra.Validate() }, entra.AuthWorkloadIdentity)
		}},
	} {
		data, err := os.ReadFile(filepath.Join("kubernetes", file))
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		seen := map[string]bool{}
		for {
			var m keylessManifest
			if err := dec.Decode(&m); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			seen[m.Kind] = true
			pod := m.Spec.JobTemplate.Spec.Template
			switch m.Kind {
			case "ServiceAccount":
				if m.Metadata.Annotations[c.annotation] == "" {
					t.Errorf("%s: the service account lacks the annotation %s", file, c.annotation)
				}
			case "CronJob":
				if pod.Spec.ServiceAccountName != "orgsync" || c.label != "" && pod.Metadata.Labels[c.label] != "true" {
					t.Errorf("%s: the pod runs as %q with labels %v", file, pod.Spec.ServiceAccountName, pod.Metadata.Labels)
				}
			case "ConfigMap":
				if err := c.validate([]byte(m.Data["orgsync.yaml"])); err != nil {
					t.Errorf("%s: %v", file, err)
				}
			}
		}
		if !seen["ServiceAccount"] || !seen["ConfigMap"] || !seen["CronJob"] {
			t.Errorf("%s: kinds %v, want a ServiceAccount, a ConfigMap and a CronJob", file, seen)
		}
	}
}

// validate decodes the first source of a configuration into cfg and
// checks that it validates in mode.
func validate(text []byte, cfg any, check func() (string, []diag.FieldError), mode string) error {
	var file struct{ Sources []yaml.Node }
	if err := yaml.Unmarshal(text, &file); err != nil || len(file.Sources) != 1 {
		return fmt.Errorf("not one source: %v", err)
	}
	if err := file.Sources[0].Decode(cfg); err != nil {
		return err
	}
	if got, errs := check(); got != mode || len(errs) > 0 {
		return fmt.Errorf("auth %q, problems %v; want %s and none", got, errs, mode)
	}
	return nil
}
