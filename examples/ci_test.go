package examples

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/orgsync/orgsync/internal/demo/simserver"
	"github.com/orgsync/orgsync/internal/util/testenv"
	"github.com/orgsync/orgsync/target/umsim"
)

// The pull-request recipes of examples/ci are checked here: each file is
// valid for its CI (the GitHub workflow by actionlint, which checks a
// workflow against GitHub's workflow syntax, expressions and the inputs of
// the actions it uses, and runs shellcheck on its scripts: that test is in
// the tools module, tools/examples, so that orgsync's module does not
// require actionlint; the GitLab file by gitlab-ci-local against GitLab's
// CI schema), and their jobs run here
// against the simulator: the review on a pull request (validate, the
// mapping tests, plan --out, the comment), then the apply of the reviewed
// plan once merged. What needs the CI's own service is stood in for: the
// GitLab API by a fake of its documented endpoints, GitHub's (finding the
// reviewed run and its artifact) by handing the review's plan to the apply
// job, as actions/download-artifact does.

// ciRepo is a repository with an orgsync configuration (the CSV example,
// its secrets named {env: ...} as the recipes expect) pointing at a
// simulator, and its mapping tests.
type ciRepo struct {
	dir string
	env []string // the CI's secrets, and orgsync on PATH
	sim *umsim.Multi
}

// newCIRepo serves the example organization and writes the repository.
func newCIRepo(t *testing.T) *ciRepo {
	t.Helper()
	sim, err := simserver.Load(filepath.Join("sim", "org.yaml"), umsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- simserver.Serve(ctx, ln, sim) }()
	t.Cleanup(func() { stop(); <-done })

	dir := t.TempDir()
	cfg := strings.NewReplacer(
		"http://127.0.0.1:8080", "http://"+ln.Addr().String(),
		"{file: ../sim/demo-client-secret}", "{env: ORGSYNC_CLIENT_SECRET}",
		"{file: ../sim/demo-private-key.pem}", "{env: ORGSYNC_PRIVATE_KEY}",
		"# yaml-language-server: $schema=../orgsync.schema.json", "# yaml-language-server: $schema=orgsync.schema.json",
	).Replace(string(read(t, filepath.Join("csv", "orgsync.yaml"))))
	if !strings.Contains(cfg, "{env: ORGSYNC_PRIVATE_KEY}") {
		t.Fatal("the CSV example no longer names its secrets as the test expects")
	}
	write(t, filepath.Join(dir, "orgsync.yaml"), cfg)
	write(t, filepath.Join(dir, "users.csv"), string(read(t, filepath.Join("csv", "users.csv"))))
	write(t, filepath.Join(dir, "orgsync.test.yaml"), string(read(t, filepath.Join("csv", "orgsync.test.yaml"))))

	bin := filepath.Join(t.TempDir(), "orgsync")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/orgsync").CombinedOutput(); err != nil {
		t.Fatalf("building orgsync: %v\n%s", err, out)
	}
	env := []string{
		"PATH=" + filepath.Dir(bin) + ":" + os.Getenv("PATH"),
		"ORGSYNC_CLIENT_SECRET=" + strings.TrimSpace(string(read(t, filepath.Join("sim", "demo-client-secret")))),
		"ORGSYNC_PRIVATE_KEY=" + string(read(t, filepath.Join("sim", "demo-private-key.pem"))),
		"LDAP_BIND_PASSWORD=unused",
	}
	return &ciRepo{dir: dir, env: env, sim: sim}
}

// users returns the emails of the simulated organization's users.
func (r *ciRepo) users(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, s := range r.sim.Servers() {
		for _, u := range s.Snapshot().Users {
			out = append(out, u.Email)
		}
	}
	return out
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// workflow is the part of a GitHub workflow the test runs.
type workflow struct {
	Env  map[string]string
	Jobs map[string]struct {
		Env   map[string]string
		Steps []struct {
			ID   string
			Name string
			Uses string
			Run  string
			Env  map[string]string
		}
	}
}

// expression is a ${{ ... }} expression of a workflow.
var expression = regexp.MustCompile(`\$\{\{\s*([^}]+?)\s*\}\}`)

// runGitHubJob runs the run: steps of a job of the workflow in bash as a
// GitHub runner does (bash -eo pipefail, the workflow's, job's and step's
// env, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files), the expressions of
// their env replaced from values; skip names steps left out (with why).
func runGitHubJob(t *testing.T, r *ciRepo, wf *workflow, job string, values map[string]string, skip map[string]string) (summary string) {
	t.Helper()
	j, ok := wf.Jobs[job]
	if !ok {
		t.Fatalf("the workflow has no job %s", job)
	}
	runner := t.TempDir()
	summaryFile, output := filepath.Join(runner, "summary"), filepath.Join(runner, "output")
	expand := func(v string) string {
		return expression.ReplaceAllStringFunc(v, func(e string) string {
			name := expression.FindStringSubmatch(e)[1]
			val, ok := values[name]
			if !ok {
				t.Fatalf("%s: the test gives no value for ${{ %s }}", job, name)
			}
			return val
		})
	}
	for _, s := range j.Steps {
		if s.Run == "" {
			continue // an action (uses:): GitHub's, run by the runner
		}
		if why, ok := skip[s.ID]; ok {
			t.Logf("%s: step %q left out: %s", job, s.Name, why)
			continue
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
		cmd.Dir = r.dir
		cmd.Env = append(os.Environ(), r.env...)
		cmd.Env = append(cmd.Env, "GITHUB_STEP_SUMMARY="+summaryFile, "GITHUB_OUTPUT="+output,
			"GITHUB_SHA=0123456789abcdef", "GITHUB_REPOSITORY=corp/directory-config")
		for _, env := range []map[string]string{wf.Env, j.Env, s.Env} {
			for k, v := range env {
				cmd.Env = append(cmd.Env, k+"="+expand(v))
			}
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: step %q failed: %v\n%s", job, s.Name, err, out)
		}
	}
	data, _ := os.ReadFile(summaryFile)
	return string(data)
}

// TestGitHubWorkflowRunsAgainstTheSimulator runs the review job on a pull
// request, then the apply job on the merge, against the simulator.
func TestGitHubWorkflowRunsAgainstTheSimulator(t *testing.T) {
	r := newCIRepo(t)
	var wf workflow
	if err := yaml.Unmarshal(read(t, filepath.Join("ci", "github", "orgsync.yml")), &wf); err != nil {
		t.Fatal(err)
	}
	values := map[string]string{"github.token": "unused"}
	for _, e := range r.env {
		if k, v, _ := strings.Cut(e, "="); k != "PATH" {
			values["secrets."+k] = v
		}
	}
	summary := runGitHubJob(t, r, &wf, "review", values, nil)
	for _, want := range []string{"### orgsync plan for 0123456789abcdef", "+ create dave@example.com", "orgsync apply"} {
		if !strings.Contains(summary, want) {
			t.Errorf("the review's summary lacks %q:\n%s", want, summary)
		}
	}
	if before := r.users(t); contains(before, "dave@example.com") {
		t.Fatalf("the review applied changes: %v", before)
	}
	// The apply job finds the reviewed run with GitHub's API (gh), and
	// actions/download-artifact puts its plan.json in the workspace: the
	// review's plan.json is there already.
	runGitHubJob(t, r, &wf, "apply", values, map[string]string{"reviewed": "it asks GitHub's API which run reviewed the merged pull request"})
	if after := r.users(t); !contains(after, "dave@example.com") {
		t.Errorf("the apply job did not apply the reviewed plan: %v", after)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// gitlabAPI is a fake of the GitLab REST API endpoints the recipe calls,
// as GitLab documents them: a request without the project access token
// is 401, an unknown merge request or ref 404.
type gitlabAPI struct {
	mu    sync.Mutex
	notes []string
	mr    int    // the merge request of the merged commit
	sha   string // the merged commit
	plan  []byte // the review job's plan.json, served in its artifacts
}

const gitlabToken = "glpat-orgsync-test"

func (g *gitlabAPI) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if req.Header.Get("PRIVATE-TOKEN") != gitlabToken {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"message":"401 Unauthorized"}`)
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	notes := fmt.Sprintf("/api/v4/projects/42/merge_requests/%d/notes", g.mr)
	switch p := req.URL.EscapedPath(); {
	case req.Method == http.MethodPost && p == notes:
		if err := req.ParseForm(); err != nil || req.PostForm.Get("body") == "" {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"message":"400 (Bad request) \"body\" not given"}`)
			return
		}
		g.notes = append(g.notes, req.PostForm.Get("body"))
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"id":%d,"body":%q,"noteable_type":"MergeRequest"}`, len(g.notes), req.PostForm.Get("body"))
	case req.Method == http.MethodGet && p == "/api/v4/projects/42/repository/commits/"+g.sha+"/merge_requests":
		fmt.Fprintf(w, `[{"id":9001,"iid":%d,"project_id":42,"state":"merged","merge_commit_sha":%q}]`, g.mr, g.sha)
	case req.Method == http.MethodGet && p == fmt.Sprintf("/api/v4/projects/42/jobs/artifacts/refs%%2Fmerge-requests%%2F%d%%2Fhead/download", g.mr) &&
		req.URL.Query().Get("job") == "orgsync:review" && g.plan != nil:
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		f, _ := zw.Create("plan.json")
		_, _ = f.Write(g.plan)
		_ = zw.Close()
		w.Header().Set("Content-Type", "application/zip")
		_, _ = w.Write(b.Bytes())
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"message":"404 Not found"}`)
	}
}

// gitlabCILocal runs gitlab-ci-local in dir with args.
func gitlabCILocal(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "gitlab-ci-local", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gitlab-ci-local %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// git runs git in dir.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=ci@example.com", "-c", "user.name=ci", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestGitLabJobsValidateAndRunAgainstTheSimulator checks the GitLab file
// against GitLab's CI schema, then runs its review job on a merge request
// and its apply job on the merge with gitlab-ci-local's shell executor
// (no container runtime here: the jobs' image is left out, orgsync is on
// PATH as the image's before_script would make it) against the simulator
// and the fake GitLab API.
func TestGitLabJobsValidateAndRunAgainstTheSimulator(t *testing.T) {
	// gitlab-ci-local comes from npm (Debian's npm package brings npm).
	for tool, deb := range map[string]string{"gitlab-ci-local": "npm", "git": "git", "rsync": "rsync", "curl": "curl", "unzip": "unzip"} {
		testenv.Program(t, deb, tool)
	}
	r := newCIRepo(t)
	recipe := string(read(t, filepath.Join("ci", "gitlab", "orgsync.gitlab-ci.yml")))
	api := &gitlabAPI{mr: 7}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	// origin has main with an older configuration; the merge request's
	// branch changes it.
	origin := t.TempDir()
	git(t, origin, "init", "--bare", "-q")
	write(t, filepath.Join(r.dir, ".gitlab-ci.yml"), recipe)
	write(t, filepath.Join(r.dir, ".gitignore"), ".gitlab-ci-local/\nplan.*\n")
	orig := string(read(t, filepath.Join(r.dir, "orgsync.yaml")))
	write(t, filepath.Join(r.dir, "orgsync.yaml"), strings.Replace(orig, "targets: [Design]", "targets: [Design, Photo Apps]", 1))
	git(t, r.dir, "init", "-q")
	git(t, r.dir, "add", "-A")
	git(t, r.dir, "commit", "-qm", "orgsync")
	git(t, r.dir, "remote", "add", "origin", origin)
	git(t, r.dir, "push", "-q", "origin", "main")
	git(t, r.dir, "remote", "set-head", "origin", "main")

	out := gitlabCILocal(t, r.dir, r.env, "--list", "--json-schema-validation")
	if !strings.Contains(out, "json schema validated") {
		t.Fatalf("gitlab-ci-local did not validate the file against GitLab's schema:\n%s", out)
	}

	// The merge request: the configuration changes on a branch.
	git(t, r.dir, "checkout", "-q", "-b", "design-photo")
	write(t, filepath.Join(r.dir, "orgsync.yaml"), orig)
	write(t, filepath.Join(r.dir, ".gitlab-ci.yml"), regexp.MustCompile(`(?m)^  image: .*\n`).ReplaceAllString(recipe, ""))
	git(t, r.dir, "commit", "-qam", "design: no Photo Apps")
	vars := []string{"--variable", "CI_API_V4_URL=http://" + ln.Addr().String() + "/api/v4", "--variable", "CI_PROJECT_ID=42",
		"--variable", "ORGSYNC_GITLAB_TOKEN=" + gitlabToken}
	for _, e := range r.env {
		if k, _, _ := strings.Cut(e, "="); k != "PATH" {
			vars = append(vars, "--variable", e)
		}
	}
	review := append([]string{"--shell-executor-no-image", "--artifacts-to-source", "--variable", "CI_PIPELINE_SOURCE=merge_request_event",
		"--variable", "CI_MERGE_REQUEST_IID=7"}, vars...)
	out = gitlabCILocal(t, r.dir, r.env, append(review, "orgsync:review")...)
	t.Log(out)
	if !strings.Contains(out, "PASS  orgsync:review") {
		t.Fatalf("orgsync:review did not pass:\n%s", out)
	}
	api.mu.Lock()
	if len(api.notes) != 1 || !strings.Contains(api.notes[0], "orgsync plan for") || !strings.Contains(api.notes[0], "+ create dave@example.com") {
		t.Errorf("the merge request's comment: %q", api.notes)
	}
	api.plan = read(t, filepath.Join(r.dir, "plan.json"))
	api.mu.Unlock()
	if contains(r.users(t), "dave@example.com") {
		t.Fatal("the review applied changes")
	}

	// The merge: main has the branch's commit, which origin does not have yet.
	git(t, r.dir, "checkout", "-q", "main")
	git(t, r.dir, "merge", "-q", "--ff-only", "design-photo")
	api.mu.Lock()
	api.sha = git(t, r.dir, "rev-parse", "HEAD")
	api.mu.Unlock()
	out = gitlabCILocal(t, r.dir, r.env, append([]string{"--shell-executor-no-image", "--variable", "CI_PIPELINE_SOURCE=push"}, append(vars, "orgsync:apply")...)...)
	t.Log(out)
	if !strings.Contains(out, "PASS  orgsync:apply") || !strings.Contains(out, "merge request !7") {
		t.Fatalf("orgsync:apply did not pass:\n%s", out)
	}
	if !contains(r.users(t), "dave@example.com") {
		t.Errorf("the apply job did not apply the reviewed plan: %v", r.users(t))
	}
}
