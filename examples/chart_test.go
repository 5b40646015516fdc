package examples

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"text/template"

	"gopkg.in/yaml.v3"
)

// chartFuncs are the template functions of Helm (from sprig) that the
// orgsync-orgs chart uses, with Helm's semantics.
var chartFuncs = template.FuncMap{
	"join": func(sep string, list []any) string {
		s := make([]string, len(list))
		for i, v := range list {
			s[i] = fmt.Sprint(v)
		}
		return strings.Join(s, sep)
	},
	"quote": func(v any) string { return fmt.Sprintf("%q", fmt.Sprint(v)) },
	"default": func(def, v any) any {
		if v == nil || v == "" {
			return def
		}
		return v
	},
	"toYaml": func(v any) (string, error) {
		b, err := yaml.Marshal(v)
		return strings.TrimSuffix(string(b), "\n"), err
	},
	"nindent": func(n int, s string) string {
		pad := strings.Repeat(" ", n)
		return "\n" + pad + strings.ReplaceAll(s, "\n", "\n"+pad)
	},
}

// TestOrgsChartRendersOneCronJobPerJob renders the chart of
// kubernetes/orgsync-orgs with its values and checks each CronJob.
func TestOrgsChartRendersOneCronJobPerJob(t *testing.T) {
	var values map[string]any
	data, err := os.ReadFile("kubernetes/orgsync-orgs/values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &values); err != nil {
		t.Fatal(err)
	}
	tpl, err := template.New("cronjobs.yaml").Funcs(chartFuncs).ParseFiles("kubernetes/orgsync-orgs/templates/cronjobs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := tpl.Execute(&out, map[string]any{"Values": values, "Release": map[string]any{"Name": "orgsync"}}); err != nil {
		t.Fatal(err)
	}
	type cronJob struct {
		Kind     string
		Metadata struct{ Name string }
		Spec     struct {
			Schedule          string
			ConcurrencyPolicy string `yaml:"concurrencyPolicy"`
			JobTemplate       struct {
				Spec struct {
					Template struct {
						Spec struct {
							Containers []struct {
								Image string
								Args  []string
							}
						}
					}
				}
			} `yaml:"jobTemplate"`
		}
	}
	var jobs []cronJob
	dec := yaml.NewDecoder(&out)
	for {
		var j cronJob
		err := dec.Decode(&j)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the chart renders invalid YAML: %v", err)
		}
		jobs = append(jobs, j)
	}
	want := []struct{ name, schedule, args string }{
		{"orgsync-main", "0 */2 * * *", "plan --orgs main --log-format json"},
		{"orgsync-europe", "30 */2 * * *", "plan --orgs emea,uk --log-format json"},
	}
	if len(jobs) != len(want) {
		t.Fatalf("%d CronJobs, want %d", len(jobs), len(want))
	}
	for i, w := range want {
		j := jobs[i]
		cs := j.Spec.JobTemplate.Spec.Template.Spec.Containers
		if j.Kind != "CronJob" || j.Metadata.Name != w.name || j.Spec.Schedule != w.schedule || j.Spec.ConcurrencyPolicy != "Forbid" ||
			len(cs) != 1 || strings.Join(cs[0].Args, " ") != w.args || cs[0].Image == "" {
			t.Errorf("CronJob %d = %+v, want %+v", i, j, w)
		}
	}
}

// TestOrgsChartMountsTheStateVolume: every CronJob mounts the state
// directory's claim at /var/lib/orgsync, and the chart makes the claim.
func TestOrgsChartMountsTheStateVolume(t *testing.T) {
	var values map[string]any
	data, err := os.ReadFile("kubernetes/orgsync-orgs/values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &values); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, name := range []string{"cronjobs.yaml", "state.yaml"} {
		tpl, err := template.New(name).Funcs(chartFuncs).ParseFiles("kubernetes/orgsync-orgs/templates/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if err := tpl.Execute(&out, map[string]any{"Values": values, "Release": map[string]any{"Name": "orgsync"}}); err != nil {
			t.Fatal(err)
		}
		out.WriteString("\n---\n")
	}
	type podSpec struct {
		Containers []struct {
			VolumeMounts []struct {
				Name      string
				MountPath string `yaml:"mountPath"`
			} `yaml:"volumeMounts"`
		}
		Volumes []struct {
			Name string
			PVC  *struct {
				ClaimName string `yaml:"claimName"`
			} `yaml:"persistentVolumeClaim"`
		}
	}
	var jobs, claims int
	dec := yaml.NewDecoder(&out)
	for {
		var doc struct {
			Kind     string
			Metadata struct{ Name string }
			Spec     struct {
				JobTemplate struct {
					Spec struct{ Template struct{ Spec podSpec } }
				} `yaml:"jobTemplate"`
				Resources struct{ Requests map[string]string }
			}
		}
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the chart renders invalid YAML: %v", err)
		}
		switch doc.Kind {
		case "CronJob":
			jobs++
			pod := doc.Spec.JobTemplate.Spec.Template.Spec
			mounted := false
			for _, m := range pod.Containers[0].VolumeMounts {
				mounted = mounted || (m.Name == "state" && m.MountPath == "/var/lib/orgsync")
			}
			claimed := false
			for _, v := range pod.Volumes {
				claimed = claimed || (v.Name == "state" && v.PVC != nil && v.PVC.ClaimName == "orgsync-state")
			}
			if !mounted || !claimed {
				t.Errorf("CronJob %s: state mounted %v, from the claim %v", doc.Metadata.Name, mounted, claimed)
			}
		case "PersistentVolumeClaim":
			claims++
			if doc.Metadata.Name != "orgsync-state" || doc.Spec.Resources.Requests["storage"] != "1Gi" {
				t.Errorf("claim %+v", doc)
			}
		}
	}
	if jobs != 2 || claims != 1 {
		t.Errorf("%d CronJobs and %d claims, want 2 and 1", jobs, claims)
	}
}
