package examples

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
	corev1 "k8s.io/api/core/v1"
)

// TestChartMonitoringResources: the chart's monitoring resources are off
// by default; on, the PrometheusRule's spec is examples/monitoring's
// rules and the ConfigMap holds its dashboard, labelled for Grafana's
// sidecar, both as Kubernetes reads them.
func TestChartMonitoringResources(t *testing.T) {
	defaults := filepath.Join(chartDir, "values.yaml")
	if out := renderFiles(t, defaults)[filepath.Join("orgsync-orgs", "templates", "monitoring.yaml")]; strings.TrimSpace(out) != "" {
		t.Errorf("monitoring resources rendered by default:\n%s", out)
	}
	out := renderFiles(t, defaults, filepath.Join(chartDir, "ci", "monitoring-values.yaml"))[filepath.Join("orgsync-orgs", "templates", "monitoring.yaml")]
	docs := strings.Split(out, "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("%d documents, want a PrometheusRule and a ConfigMap:\n%s", len(docs), out)
	}
	var rule struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Name   string            `yaml:"name"`
			Labels map[string]string `yaml:"labels"`
		} `yaml:"metadata"`
		Spec map[string]any `yaml:"spec"`
	}
	if err := yaml.Unmarshal([]byte(docs[0]), &rule); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{}
	data, err := os.ReadFile(filepath.Join(examples, "monitoring", "orgsync-alerts.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if rule.APIVersion != "monitoring.coreos.com/v1" || rule.Kind != "PrometheusRule" || rule.Metadata.Labels["release"] != "prometheus" || !sameJSON(t, rule.Spec, want) {
		t.Errorf("the PrometheusRule: %s %s %v; spec is the rules file: %v", rule.APIVersion, rule.Kind, rule.Metadata.Labels, sameJSON(t, rule.Spec, want))
	}
	objs := decodeStrict(t, "monitoring.yaml", []byte(docs[1]))
	cm, ok := objs[0].(*corev1.ConfigMap)
	if len(objs) != 1 || !ok {
		t.Fatalf("the second document is %v, want a ConfigMap", objs)
	}
	dash, err := os.ReadFile(filepath.Join(examples, "monitoring", "orgsync-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	if cm.Labels["grafana_dashboard"] != "1" || cm.Data["orgsync.json"] != strings.TrimSuffix(string(dash), "\n") {
		t.Errorf("the dashboard ConfigMap: %v, %d bytes of dashboard", cm.Labels, len(cm.Data["orgsync.json"]))
	}
	var d map[string]any
	if err := json.Unmarshal([]byte(cm.Data["orgsync.json"]), &d); err != nil || d["uid"] != "orgsync" {
		t.Errorf("the ConfigMap's dashboard is not Grafana's JSON: %v", err)
	}
}

// sameJSON reports whether a and b are the same once made JSON.
func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}
