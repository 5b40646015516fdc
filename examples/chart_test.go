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
