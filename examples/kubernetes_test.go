package examples

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
)

// strict decodes manifests as the API server does with
// fieldValidation=Strict: into the Kubernetes API types of their
// apiVersion and kind, refusing an unknown or repeated field, a kind the
// API version does not have, and a value of the wrong type.
var strict = serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()

// decodeStrict decodes every document of a manifest file strictly.
func decodeStrict(t *testing.T, name string, data []byte) []runtime.Object {
	t.Helper()
	var objs []runtime.Object
	for i, doc := range bytes.Split(data, []byte("\n---")) {
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		obj, _, err := strict.Decode(doc, nil, nil)
		if err != nil {
			t.Errorf("%s, document %d: %v", name, i+1, err)
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
	files, err := filepath.Glob(filepath.Join("kubernetes", "*.yaml"))
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
