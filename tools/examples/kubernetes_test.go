package examples

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"gopkg.in/yaml.v3"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/entra"
	"github.com/orgsync/orgsync/source/google"
)

// strict decodes manifests as the API server does with
// fieldValidation=Strict: into the Kubernetes API types of their
// apiVersion and kind, refusing an unknown or repeated field, a kind the
// API version does not have, and a value of the wrong type.
var strict = serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()

// served are the stable API versions of the kinds the manifests use,
// served by every Kubernetes release still supported: client-go's scheme
// also decodes versions the API server stopped serving (batch/v1beta1
// CronJob, removed in 1.25; extensions/v1beta1 Deployment, in 1.16).
var served = map[string]bool{"v1": true, "apps/v1": true, "batch/v1": true, "rbac.authorization.k8s.io/v1": true, "policy/v1": true, "networking.k8s.io/v1": true}

// decodeStrict decodes every document of a manifest file strictly, in an
// API version Kubernetes serves.
func decodeStrict(t *testing.T, name string, data []byte) []runtime.Object {
	t.Helper()
	var objs []runtime.Object
	for i, doc := range bytes.Split(data, []byte("\n---")) {
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		obj, gvk, err := strict.Decode(doc, nil, nil)
		if err != nil {
			t.Errorf("%s, document %d: %v", name, i+1, err)
			continue
		}
		if gv := gvk.GroupVersion().String(); !served[gv] {
			t.Errorf("%s, document %d: %s %s: an API version current Kubernetes no longer serves (or a beta one); use the stable one", name, i+1, gv, gvk.Kind)
			continue
		}
		objs = append(objs, obj)
	}
	return objs
}

// stripComments drops the comment lines of a YAML document.
func stripComments(doc []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(out, line)
		}
	}
	return bytes.Join(out, []byte("\n"))
}

// TestKubernetesManifests decodes every plain manifest strictly into the
// API types and checks the workloads: they run the image the README
// builds (`docker build -t orgsync .`) without pulling it when present,
// mount no service account token (orgsync never calls the Kubernetes API),
// and read the configuration the ConfigMap holds.
func TestKubernetesManifests(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(kubernetesDir, "*.yaml"))
	if err != nil || len(files) < 4 {
		t.Fatalf("manifests: %v %v", files, err)
	}
	kinds := map[string]int{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, obj := range decodeStrict(t, file, data) {
			var pod *corev1.PodSpec
			switch o := obj.(type) {
			case *batchv1.CronJob:
				pod = &o.Spec.JobTemplate.Spec.Template.Spec
			case *appsv1.Deployment:
				pod = &o.Spec.Template.Spec
			case *corev1.ConfigMap:
				checkConfigMap(t, file, o)
			}
			kinds[kindOf(obj)]++
			if pod == nil {
				continue
			}
			if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
				t.Errorf("%s: automountServiceAccountToken is not false", file)
			}
			if len(pod.Containers) != 1 || pod.Containers[0].Image != "orgsync:latest" || pod.Containers[0].ImagePullPolicy != corev1.PullIfNotPresent {
				t.Errorf("%s: containers %+v, want the image orgsync:latest, pulled if not present", file, pod.Containers)
			}
		}
	}
	for _, kind := range []string{"CronJob", "Deployment", "ConfigMap", "Secret"} {
		if kinds[kind] == 0 {
			t.Errorf("no %s among the manifests (%v)", kind, kinds)
		}
	}
}

// kindOf is the kind of a decoded API object.
func kindOf(obj runtime.Object) string {
	gvks, _, err := scheme.Scheme.ObjectKinds(obj)
	if err != nil || len(gvks) == 0 {
		return ""
	}
	return gvks[0].Kind
}

// checkConfigMap checks that a ConfigMap holds orgsync.yaml, the file
// the workloads mount.
func checkConfigMap(t *testing.T, file string, cm *corev1.ConfigMap) {
	t.Helper()
	if _, ok := cm.Data["orgsync.yaml"]; !ok {
		t.Errorf("%s: the ConfigMap holds no orgsync.yaml", file)
	}
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
		data, err := os.ReadFile(filepath.Join(kubernetesDir, file))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, obj := range decodeStrict(t, file, data) {
			seen[kindOf(obj)] = true
			switch o := obj.(type) {
			case *corev1.ServiceAccount:
				if o.Annotations[c.annotation] == "" {
					t.Errorf("%s: the service account lacks the annotation %s", file, c.annotation)
				}
			case *batchv1.CronJob:
				pod := &o.Spec.JobTemplate.Spec.Template
				if pod.Spec.ServiceAccountName != "orgsync" || c.label != "" && pod.Labels[c.label] != "true" {
					t.Errorf("%s: the pod runs as %q with labels %v", file, pod.Spec.ServiceAccountName, pod.Labels)
				}
			case *corev1.ConfigMap:
				if err := c.validate([]byte(o.Data["orgsync.yaml"])); err != nil {
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
