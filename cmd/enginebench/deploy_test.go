package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/enginebench/enginebench/internal/plan"
	"github.com/enginebench/enginebench/internal/registry"
	"github.com/enginebench/enginebench/internal/shard"
)

// The deployment examples (deploy/), from this package's directory.
const (
	repoRoot   = "../.."
	k8sDir     = repoRoot + "/deploy/k8s"
	ciWorkflow = repoRoot + "/deploy/ci/matrix.yml"
)

// secretDSN stands, in the environment of a command checked here, for a DSN a Secret gives.
const secretDSN = "postgres://bench:from-the-secret@db.example:5432/bench"

// manifest is one Kubernetes object of deploy/k8s, decoded strictly into its API type.
type manifest struct {
	path string
	job  *batchv1.Job
	pvc  *corev1.PersistentVolumeClaim
}

// loadManifests decodes every deploy/k8s/*.yaml, one object a file, strictly (an unknown or
// misspelt field fails) into the Kubernetes type of its kind.
func loadManifests(t testing.TB) []manifest {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(k8sDir, "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no manifests in %s: %v", k8sDir, err)
	}
	var out []manifest
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(b, &tm); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		m := manifest{path: p}
		var obj any
		switch tm.APIVersion + " " + tm.Kind {
		case "batch/v1 Job":
			m.job = &batchv1.Job{}
			obj = m.job
		case "v1 PersistentVolumeClaim":
			m.pvc = &corev1.PersistentVolumeClaim{}
			obj = m.pvc
		default:
			t.Fatalf("%s: unexpected object %s %s", p, tm.APIVersion, tm.Kind)
		}
		if err := yaml.UnmarshalStrict(b, obj); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, m)
	}
	return out
}

// podCommand is one container's enginebench command line in one pod of a job.
type podCommand struct {
	job       string
	container string
	index     int // the pod's JOB_COMPLETION_INDEX; -1 for a job that is not indexed
	args      []string
	env       map[string]string // the container's environment, a Secret's values as secretDSN
	// mounts maps each mount path to its volume.
	mounts map[string]corev1.Volume
}

// commands returns the enginebench command lines of every pod of job: for an Indexed Job, one
// per completion index, with $(VAR) expanded as Kubernetes expands it (the container's env and
// JOB_COMPLETION_INDEX). It fails the test on what must hold for every container: the command
// is enginebench, the mounts name the pod's volumes, and no credential is in the args.
func commands(t testing.TB, m manifest) []podCommand {
	t.Helper()
	j, spec := m.job, m.job.Spec.Template.Spec
	if spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("%s: restartPolicy %q, want Never: a run that failed is not run again in its pod", m.path, spec.RestartPolicy)
	}
	indexes := []int{-1}
	if j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion {
		if j.Spec.Completions == nil {
			t.Fatalf("%s: an Indexed Job needs completions", m.path)
		}
		indexes = indexes[:0]
		for i := range int(*j.Spec.Completions) {
			indexes = append(indexes, i)
		}
	}
	vols := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		vols[v.Name] = v
	}
	var out []podCommand
	for _, c := range append(slices.Clone(spec.InitContainers), spec.Containers...) {
		at := fmt.Sprintf("%s: container %s", m.path, c.Name)
		if !slices.Equal(c.Command, []string{"enginebench"}) || len(c.Args) == 0 {
			t.Errorf("%s: command %q args %q, want enginebench and its arguments", at, c.Command, c.Args)
			continue
		}
		mounts := map[string]corev1.Volume{}
		for _, vm := range c.VolumeMounts {
			v, ok := vols[vm.Name]
			if !ok {
				t.Errorf("%s: mounts %s, which is not a volume of the pod", at, vm.Name)
			}
			mounts[vm.MountPath] = v
		}
		env, secrets := containerEnv(t, at, c)
		checkNoCredentials(t, at, c.Args, secrets)
		for _, i := range indexes {
			pc := podCommand{job: j.Name, container: c.Name, index: i, env: env, mounts: mounts}
			for _, a := range c.Args {
				pc.args = append(pc.args, expand(t, at, a, env, i))
			}
			out = append(out, pc)
		}
	}
	return out
}

// containerEnv returns c's environment as a command sees it (a Secret's values as secretDSN)
// and the names of the variables from Secrets; a credential written in the manifest fails.
func containerEnv(t testing.TB, at string, c corev1.Container) (env map[string]string, secrets []string) {
	env = map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
			env[e.Name] = secretDSN
			secrets = append(secrets, e.Name)
		case e.ValueFrom != nil:
			t.Errorf("%s: env %s: only Secrets' values are expected", at, e.Name)
		case strings.Contains(e.Value, "://") || regexp.MustCompile(`(?i)dsn|password|secret`).MatchString(e.Name):
			t.Errorf("%s: env %s: a credential written in the manifest: take it from a Secret", at, e.Name)
		default:
			env[e.Name] = e.Value
		}
	}
	return env, secrets
}

// checkNoCredentials fails the test for args that would put a credential in the process list:
// --dsn, a DSN, or a reference to a variable from a Secret.
func checkNoCredentials(t testing.TB, at string, args, secrets []string) {
	t.Helper()
	for _, a := range args {
		if a == "--dsn" || strings.HasPrefix(a, "--dsn=") || strings.Contains(a, "://") {
			t.Errorf("%s: argument %q: a DSN on the command line is in the process list; give it by a Secret in the environment", at, a)
		}
		for _, s := range secrets {
			if strings.Contains(a, "$("+s+")") {
				t.Errorf("%s: argument %q puts the Secret's %s in the process list", at, a, s)
			}
		}
	}
}

var kubeVar = regexp.MustCompile(`\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// expand expands $(VAR) in a as Kubernetes does in args: from env, and JOB_COMPLETION_INDEX in
// an indexed pod; $$ is a $. A reference Kubernetes would leave as it is fails the test.
func expand(t testing.TB, at, a string, env map[string]string, index int) string {
	return kubeVar.ReplaceAllStringFunc(a, func(ref string) string {
		if ref == "$$" {
			return "$"
		}
		name := ref[2 : len(ref)-1]
		if name == shard.JobIndexEnv && index >= 0 {
			return strconv.Itoa(index)
		}
		if v, ok := env[name]; ok {
			return v
		}
		t.Errorf("%s: argument %q: $(%s) is not set in the pod: Kubernetes leaves it as it is", at, a, name)
		return ref
	})
}

// under returns the volume mounted at the longest mount path that holds path, and path relative
// to it; ok is false when no mount holds it (the pod's own file system, lost with the pod).
func (pc podCommand) under(path string) (v corev1.Volume, rel string, ok bool) {
	best := ""
	for mp := range pc.mounts {
		if (path == mp || strings.HasPrefix(path, strings.TrimSuffix(mp, "/")+"/")) && len(mp) > len(best) {
			best, ok = mp, true
		}
	}
	if !ok {
		return v, "", false
	}
	rel, _ = filepath.Rel(best, path)
	return pc.mounts[best], rel, true
}

// shared fails the test unless dir is on a persistent volume claim of the pod (it must outlive
// the pod and be seen by the other jobs).
func (pc podCommand) shared(t testing.TB, what, dir string) {
	t.Helper()
	if v, _, ok := pc.under(dir); !ok || v.PersistentVolumeClaim == nil {
		t.Errorf("job %s, container %s: %s %s is not on a mounted persistent volume claim", pc.job, pc.container, what, dir)
	}
}

// runCheck is what the run command of a pod selects, once enginebench's own checks passed.
type runCheck struct {
	f   *runFlags
	pl  *plan.Plan
	out string
}

// checkPodRun checks the run command line of pc (checkRunArgs) in its pod: its run directory
// is on the shared claim and its data directory on a volume.
func checkPodRun(t testing.TB, pc podCommand) *runCheck {
	t.Helper()
	at := fmt.Sprintf("job %s, pod %d: %q", pc.job, pc.index, pc.args)
	rc := checkRunArgs(t, at, pc.args, pc.env, pc.index, func(p string) string { return pc.specFile(t, p) })
	pc.shared(t, "--out", rc.out)
	if rc.f.dataDir != "" {
		if _, _, ok := pc.under(rc.f.dataDir); !ok {
			t.Errorf("%s: --data-dir %s is not on a mounted volume", at, rc.f.dataDir)
		}
	}
	return rc
}

// checkRunArgs parses a run command line (args, "run" first) with run's own flags and checks it
// as `run` does before any work, with env and JOB_COMPLETION_INDEX index (none when -1) set:
// the run spec (read from spec(--config)), the workload's flags, --shard, --config-index and
// the configurations. Only what needs the machine is not checked: the engines' installation
// (unless CI=true) and the server.
func checkRunArgs(t testing.TB, at string, args []string, env map[string]string, index int, spec func(string) string) *runCheck {
	t.Helper()
	cmd, f := runCommand(io.Discard, io.Discard)
	if err := cmd.ParseFlags(args[1:]); err != nil {
		t.Fatalf("%s: %v", at, err)
	}
	fl, pos := cmd.Flags(), cmd.Flags().Args()
	if err := cmd.ValidateArgs(pos); err != nil {
		t.Fatalf("%s: %v", at, err)
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	t.Setenv(shard.JobIndexEnv, "")
	if index >= 0 {
		t.Setenv(shard.JobIndexEnv, strconv.Itoa(index))
	}
	if f.config != "" {
		f.config = spec(f.config)
	}
	reg, err := registry.Engines()
	if err != nil {
		t.Fatal(err)
	}
	var secrets []string
	sp, _, err := readRunSpec(fl, f.config, reg, &secrets)
	if err != nil {
		t.Fatalf("%s: %v", at, err)
	}
	w, o, err := f.options(fl, pos, sp, nil)
	var pl *plan.Plan
	if err == nil {
		pl, err = plan.Configure(reg, w, o)
	}
	if err != nil && strings.Contains(err.Error(), "is not available") && os.Getenv("CI") != "true" {
		t.Logf("%s: the engine's installation is not checked on this machine: %v", at, err)
	} else if err != nil {
		t.Fatalf("%s: enginebench refuses it: %v", at, err)
	}
	if f.out == "" {
		t.Fatalf("%s: no --out: where the run directory goes is not known", at)
	}
	return &runCheck{f: f, pl: pl, out: f.out}
}

// specFile returns the repository's copy of the run spec path that pc reads from a ConfigMap
// volume, made with `kubectl create configmap NAME --from-file=configs/FILE`.
func (pc podCommand) specFile(t testing.TB, path string) string {
	t.Helper()
	v, rel, ok := pc.under(path)
	if !ok || v.ConfigMap == nil {
		t.Fatalf("job %s: --config %s is not in a mounted ConfigMap", pc.job, path)
	}
	p := filepath.Join(repoRoot, "configs", rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("job %s: --config %s: the ConfigMap %s is made from configs/%s, which is missing: %v", pc.job, path, v.ConfigMap.Name, rel, err)
	}
	return p
}

// parsedCommand is a command line of another subcommand, parsed by its own flags.
type parsedCommand struct {
	dirs []string // the positional arguments
	fl   *pflag.FlagSet
}

// parseCommand parses args (subcommand first) with enginebench's own command of that name. A
// merge command line is parsed by `enginebench merge` when this build has it, else by the
// agreed form `merge DIR... --out DIR [--sample DIR]`.
func parseCommand(t testing.TB, at string, args []string) parsedCommand {
	t.Helper()
	c, rest, err := newRootCmd(io.Discard, io.Discard).Find(args)
	var fl *pflag.FlagSet
	switch {
	case err == nil && c.Name() == args[0]:
		fl = c.Flags()
		if err := c.ParseFlags(rest); err != nil {
			t.Fatalf("%s: %q: %v", at, args, err)
		}
		if err := c.ValidateArgs(fl.Args()); err != nil {
			t.Fatalf("%s: %q: %v", at, args, err)
		}
	case args[0] == "merge":
		t.Logf("%s: this build has no merge command: its arguments are checked against merge DIR... --out DIR [--sample DIR]", at)
		fl = pflag.NewFlagSet("merge", pflag.ContinueOnError)
		fl.String("out", "", "")
		fl.String("sample", "", "")
		if err := fl.Parse(args[1:]); err != nil || len(fl.Args()) == 0 || fl.Lookup("out").Value.String() == "" {
			t.Fatalf("%s: %q: want merge DIR... --out DIR [--sample DIR]: %v", at, args, err)
		}
	default:
		t.Fatalf("%s: %q: not an enginebench command: %v", at, args, err)
	}
	return parsedCommand{dirs: fl.Args(), fl: fl}
}

// flag returns the value of the flag name, "" when the command has no such flag.
func (p parsedCommand) flag(name string) string {
	if f := p.fl.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// deployment is what the manifests run: the shards' and matrices' run directories by job, and
// the merge and report command lines.
type deployment struct {
	shardOuts  map[string][]string // by shard run id
	matrixOuts map[string][]string // by job
	merges     []parsedCommand
	reports    []parsedCommand
	claims     map[string]bool // the claims the jobs mount
}

// TestDeployManifests checks the Kubernetes examples of deploy/k8s: each decodes strictly into
// its API type; every pod's command line is one that enginebench accepts (parsed and checked by
// its own flags, in each pod's environment); a shard set's Indexed Job runs shards 0 to N-1 of
// N with completions == parallelism == N and no retry; a matrix's runs configurations 0 to N-1
// of its spec's N; every run writes to its own directory on a shared claim, which a manifest
// declares ReadWriteMany; the merge reads exactly the shards' directories and the report the
// merge's, or the matrix's; no credential is in any command line.
func TestDeployManifests(t *testing.T) {
	d := deployment{shardOuts: map[string][]string{}, matrixOuts: map[string][]string{}, claims: map[string]bool{}}
	pvcs := map[string]*corev1.PersistentVolumeClaim{}
	for _, m := range loadManifests(t) {
		if m.pvc != nil {
			pvcs[m.pvc.Name] = m.pvc
			continue
		}
		for _, v := range m.job.Spec.Template.Spec.Volumes {
			if v.PersistentVolumeClaim != nil {
				d.claims[v.PersistentVolumeClaim.ClaimName] = true
			}
		}
		d.addJob(t, m)
	}
	for c := range d.claims {
		if p := pvcs[c]; p == nil || !slices.Contains(p.Spec.AccessModes, corev1.ReadWriteMany) {
			t.Errorf("claim %s: want a manifest of it, ReadWriteMany (pods on several nodes write to it)", c)
		}
	}
	if len(d.shardOuts) == 0 || len(d.matrixOuts) == 0 || len(d.merges) == 0 || len(d.reports) < 2 {
		t.Fatalf("want a shard set, a matrix, a merge and their reports; have %+v", d)
	}
	d.checkJoins(t)
}

// addJob checks the job of m and adds what it runs to d.
func (d *deployment) addJob(t testing.TB, m manifest) {
	t.Helper()
	j := m.job
	var outs []string
	shardRun := ""
	for _, pc := range commands(t, m) {
		at := fmt.Sprintf("%s: pod %d, container %s", m.path, pc.index, pc.container)
		switch pc.args[0] {
		case "run":
			rc := checkPodRun(t, pc)
			outs = append(outs, rc.out)
			if sh := rc.f.sh.parsed; sh.Sharded() {
				checkShardJob(t, at, j, pc.index, rc)
				shardRun = sh.Run
			} else {
				checkMatrixJob(t, at, j, pc.index, rc)
			}
		case "merge":
			p := parseCommand(t, at, pc.args)
			for _, dir := range append(slices.Clone(p.dirs), p.flag("out"), p.flag("sample")) {
				if dir != "" {
					pc.shared(t, "directory", dir)
				}
			}
			d.merges = append(d.merges, p)
		case "report":
			p := parseCommand(t, at, pc.args)
			for _, dir := range p.dirs {
				pc.shared(t, "run directory", dir)
			}
			d.reports = append(d.reports, p)
		default:
			t.Errorf("%s: unexpected command %q", at, pc.args)
		}
	}
	if len(outs) == 0 {
		return
	}
	if slices.Sort(outs); len(slices.Compact(slices.Clone(outs))) != len(outs) {
		t.Errorf("%s: pods share a run directory: %q", m.path, outs)
	}
	if shardRun != "" {
		d.shardOuts[shardRun] = outs
	} else {
		d.matrixOuts[j.Name] = outs
	}
}

// checkShardJob checks the Indexed Job j of a shard set in its pod index.
func checkShardJob(t testing.TB, at string, j *batchv1.Job, index int, rc *runCheck) {
	t.Helper()
	sh := rc.f.sh.parsed
	switch {
	case index < 0:
		t.Errorf("%s: a shard set is an Indexed Job (completionMode: Indexed)", at)
	case sh.Index != index:
		t.Errorf("%s: runs shard %d, want its index %d", at, sh.Index, index)
	case j.Spec.Parallelism == nil || int(*j.Spec.Parallelism) != sh.Count || int(*j.Spec.Completions) != sh.Count:
		t.Errorf("%s: --shard %s: completions and parallelism must both be %d, every shard at once (they wait for each other)", at, rc.f.sh.shard, sh.Count)
	case j.Spec.BackoffLimit == nil || *j.Spec.BackoffLimit != 0:
		t.Errorf("%s: backoffLimit must be 0: a shard run again would reuse the run id %s", at, sh.Run)
	}
}

// checkMatrixJob checks the Indexed Job j of a configuration matrix in its pod index.
func checkMatrixJob(t testing.TB, at string, j *batchv1.Job, index int, rc *runCheck) {
	t.Helper()
	mx := rc.pl.Matrix
	switch {
	case index < 0 || mx == nil:
		t.Errorf("%s: a matrix is an Indexed Job whose pods run one configuration of a run spec each", at)
	case mx.Index != index:
		t.Errorf("%s: runs configuration %d, want its index %d", at, mx.Index, index)
	case int(*j.Spec.Completions) != mx.Count:
		t.Errorf("%s: completions %d, want the spec's %d configurations", at, *j.Spec.Completions, mx.Count)
	case j.Spec.BackoffLimitPerIndex == nil:
		t.Errorf("%s: without backoffLimitPerIndex, one configuration's failure ends the others", at)
	}
}

// checkJoins checks that each merge reads one shard set's directories and each report a
// merge's output or one matrix's directories.
func (d *deployment) checkJoins(t testing.TB) {
	t.Helper()
	merged := map[string]bool{}
	for _, mg := range d.merges {
		dirs := slices.Sorted(slices.Values(mg.dirs))
		found := false
		for _, outs := range d.shardOuts {
			found = found || slices.Equal(dirs, outs)
		}
		if !found {
			t.Errorf("merge of %q: not the run directories of a shard set (%v)", mg.dirs, d.shardOuts)
		}
		merged[mg.flag("out")] = true
	}
	for _, r := range d.reports {
		dirs := slices.Sorted(slices.Values(r.dirs))
		found := len(dirs) == 1 && merged[dirs[0]]
		for _, outs := range d.matrixOuts {
			found = found || slices.Equal(dirs, outs)
		}
		if !found {
			t.Errorf("report of %q: neither a merge's output nor a matrix's run directories", r.dirs)
		}
	}
}

// TestDeployCheckFailsBadManifests: the checks of TestDeployManifests catch a misspelt field,
// a shard set or a matrix whose completions are not its N, a pod that is not a shard of the
// run, a DSN in the args, a Secret's variable in the args, a run directory off the shared
// volume and a variable Kubernetes does not set.
func TestDeployCheckFailsBadManifests(t *testing.T) {
	for _, c := range []struct{ file, name, from, to, want string }{
		{"shards-job.yaml", "misspelt", "completionMode:", "completionMod:", `unknown field "completionMod"`},
		{"shards-job.yaml", "completions", "completions: 4", "completions: 3", "completions and parallelism must both be 4"},
		{"shards-job.yaml", "shard", "--shard, auto/4", "--shard, 1/4", "runs shard 1, want its index 0"},
		{"shards-job.yaml", "retried", "backoffLimit: 0", "backoffLimit: 2", "backoffLimit must be 0"},
		{"shards-job.yaml", "dsn", "--shard-run, pg-r1,", "--shard-run, pg-r1, --dsn, 'postgres://u:p@db/x',", "a DSN on the command line"},
		{"shards-job.yaml", "secret in args", "--shard-run, pg-r1,", "--shard-run, pg-r1, --set, 'postgres.x=$(ENGINEBENCH_DSN)',", "puts the Secret's ENGINEBENCH_DSN in the process list"},
		{"shards-job.yaml", "off the volume", "--out, /results/pg-r1", "--out, /tmp/pg-r1", "is not on a mounted persistent volume claim"},
		{"shards-job.yaml", "unset variable", "shard-$(JOB_COMPLETION_INDEX)", "shard-$(POD_INDEX)", "$(POD_INDEX) is not set in the pod"},
		{"matrix-job.yaml", "too few", "completions: 12", "completions: 11", "completions 11, want the spec's 12 configurations"},
		{"matrix-job.yaml", "too many", "completions: 12", "completions: 13", "JOB_COMPLETION_INDEX 12: ../../configs/innodb-purge.yaml has 12 configurations"},
		{"matrix-job.yaml", "restarted", "restartPolicy: Never", "restartPolicy: OnFailure", "restartPolicy \"OnFailure\", want Never"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(k8sDir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			text := strings.Replace(string(b), c.from, c.to, 1)
			if text == string(b) {
				t.Fatalf("%q is not in the manifest", c.from)
			}
			ft := &failRecorder{TB: t}
			func() {
				defer func() {
					if r := recover(); r != nil && r != ft {
						panic(r)
					}
				}()
				m := manifest{path: c.file, job: &batchv1.Job{}}
				if err := yaml.UnmarshalStrict([]byte(text), m.job); err != nil {
					ft.Errorf("%v", err)
					return
				}
				(&deployment{shardOuts: map[string][]string{}, matrixOuts: map[string][]string{}}).addJob(ft, m)
			}()
			if !strings.Contains(ft.msgs.String(), c.want) {
				t.Errorf("the check said %q, want %q", ft.msgs.String(), c.want)
			}
		})
	}
}

// failRecorder records a check's failures instead of failing the test; its Fatalf ends the
// check by panicking with the recorder, which the caller recovers.
type failRecorder struct {
	testing.TB
	msgs strings.Builder
}

func (r *failRecorder) Helper() {}

func (r *failRecorder) Errorf(format string, a ...any) { fmt.Fprintf(&r.msgs, format+"\n", a...) }

func (r *failRecorder) Fatalf(format string, a ...any) {
	r.Errorf(format, a...)
	panic(r)
}

func (r *failRecorder) Fatal(a ...any) {
	fmt.Fprintln(&r.msgs, a...)
	panic(r)
}

func (r *failRecorder) Logf(format string, a ...any) {}

// TestDeployKubectlDryRun runs `kubectl apply --dry-run=client` on each manifest, when kubectl
// is installed (it is not required: skipped without it, in CI too). kubectl needs an API
// server's discovery even for a client dry run, to map each kind to its resource, and finds no
// server offline (a kubeconfig pointing nowhere, --validate=false included, fails with "unable
// to recognize"): the test serves it the discovery of the kinds used (the apimachinery types)
// and a 404 for every object, so that kubectl parses each manifest, maps it and prints what it
// would create. The schema is not kubectl's to check here (--validate=false: it would download
// the server's OpenAPI); TestDeployManifests decodes strictly into the API types instead.
func TestDeployKubectlDryRun(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed: the manifests are checked by TestDeployManifests only")
	}
	srv := httptest.NewServer(fakeDiscovery(t))
	defer srv.Close()
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	kc := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: %q}}]\n"+
		"users: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u, namespace: bench}}]\ncurrent-context: x\n", srv.URL)
	if err := os.WriteFile(kubeconfig, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	apply := func(path string) (string, error) {
		cmd := exec.Command(kubectl, "apply", "--dry-run=client", "--validate=false", "-o", "name",
			"--kubeconfig", kubeconfig, "--cache-dir", filepath.Join(dir, "cache"), "-f", path)
		cmd.Env = append(os.Environ(), "KUBECONFIG=", "HOME="+dir)
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	for _, m := range loadManifests(t) {
		name := "persistentvolumeclaim/" + m.pvcName()
		if m.job != nil {
			name = "job.batch/" + m.job.Name
		}
		if out, err := apply(m.path); err != nil || out != name {
			t.Errorf("kubectl apply --dry-run=client -f %s: %v: %s (want %s)", m.path, err, out, name)
		}
	}
	// kubectl does check: a kind the API does not have is refused.
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: batch/v1\nkind: Jobs\nmetadata: {name: x}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := apply(bad); err == nil || !strings.Contains(out, `no matches for kind "Jobs"`) {
		t.Errorf("kubectl apply of an unknown kind: %v: %s", err, out)
	}
}

// pvcName is the claim's name, "" for a job.
func (m manifest) pvcName() string {
	if m.pvc == nil {
		return ""
	}
	return m.pvc.Name
}

// fakeDiscovery answers kubectl's discovery of the core and batch groups' resources that the
// manifests use, and "not found" for any object.
func fakeDiscovery(t *testing.T) http.Handler {
	verbs := metav1.Verbs{"create", "delete", "get", "list", "patch", "update", "watch"}
	docs := map[string]any{
		"/api": &metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: "127.0.0.1"}}},
		"/apis": &metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: []metav1.APIGroup{{
			Name: "batch", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "batch/v1", Version: "v1"}},
			PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "batch/v1", Version: "v1"}}}},
		"/api/v1": &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList"}, GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "persistentvolumeclaims", SingularName: "persistentvolumeclaim", Namespaced: true, Kind: "PersistentVolumeClaim", Verbs: verbs},
			{Name: "namespaces", SingularName: "namespace", Kind: "Namespace", Verbs: verbs}}},
		"/apis/batch/v1": &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList"}, GroupVersion: "batch/v1", APIResources: []metav1.APIResource{
			{Name: "jobs", SingularName: "job", Namespaced: true, Kind: "Job", Verbs: verbs}}},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		doc, ok := docs[r.URL.Path]
		if !ok || r.Method != http.MethodGet {
			w.WriteHeader(http.StatusNotFound)
			json.NewEncoder(w).Encode(&metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
				Status: metav1.StatusFailure, Reason: metav1.StatusReasonNotFound, Code: http.StatusNotFound, Message: r.URL.Path + " not found"})
			return
		}
		if err := json.NewEncoder(w).Encode(doc); err != nil {
			t.Errorf("discovery %s: %v", r.URL.Path, err)
		}
	})
}

// The parts of a GitHub Actions workflow that deploy/ci/matrix.yml uses; decoding is strict,
// so a key this does not know fails the test.
type (
	workflow struct {
		Name        string            `json:"name"`
		On          map[string]any    `json:"on"`
		Permissions map[string]string `json:"permissions"`
		Jobs        map[string]ghJob  `json:"jobs"`
	}
	ghJob struct {
		Name           string      `json:"name"`
		Needs          []string    `json:"needs"`
		If             string      `json:"if"`
		RunsOn         string      `json:"runs-on"`
		TimeoutMinutes int         `json:"timeout-minutes"`
		Strategy       *ghStrategy `json:"strategy"`
		Steps          []ghStep    `json:"steps"`
	}
	ghStrategy struct {
		FailFast *bool            `json:"fail-fast"`
		Matrix   map[string][]int `json:"matrix"`
	}
	ghStep struct {
		Name string            `json:"name"`
		If   string            `json:"if"`
		Uses string            `json:"uses"`
		Run  string            `json:"run"`
		With map[string]string `json:"with"`
		Env  map[string]string `json:"env"`
	}
)

// enginebenchLines returns the enginebench command lines of job's steps, with expr replaced
// by value, split into words (the lines have no quotes), and checks that each follows the step
// that builds ./enginebench and names no secret.
func enginebenchLines(t *testing.T, name string, job ghJob, expr, value string) [][]string {
	t.Helper()
	built := false
	var out [][]string
	for _, st := range job.Steps {
		for _, line := range strings.Split(strings.TrimSpace(st.Run), "\n") {
			if strings.Contains(line, "secrets.") {
				t.Errorf("job %s: %q: a secret in a command line is in the process list and the log; give it in the step's env", name, line)
			}
			built = built || strings.TrimSpace(line) == "go build -o enginebench ./cmd/enginebench"
			words := strings.Fields(strings.ReplaceAll(line, expr, value))
			if len(words) == 0 || words[0] != "./enginebench" {
				continue
			}
			if !built || strings.ContainsAny(line, `"'`) {
				t.Errorf("job %s: %q: want it after go build -o enginebench ./cmd/enginebench, without quotes", name, line)
			}
			out = append(out, words[1:])
		}
	}
	return out
}

// TestDeployCIWorkflow checks deploy/ci/matrix.yml: its matrix job runs configuration K of the
// run spec for each K of its index list, which is 0 to N-1 for the spec's N (each command line
// parsed and checked by run's own flags), uploads each run directory under its own name, and
// the report job, after it, downloads them all and reports exactly those directories.
func TestDeployCIWorkflow(t *testing.T) {
	b, err := os.ReadFile(ciWorkflow)
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.UnmarshalStrict(b, &wf); err != nil {
		t.Fatalf("%s: %v", ciWorkflow, err)
	}
	const expr = "${{ matrix.index }}"
	var matrixJob string
	uploads := map[string]string{} // artifact name: path
	for name, job := range wf.Jobs {
		if job.Strategy == nil {
			continue
		}
		matrixJob = name
		indexes := job.Strategy.Matrix["index"]
		if f := job.Strategy.FailFast; f == nil || *f {
			t.Errorf("job %s: fail-fast must be false: one configuration's failure would cancel the others", name)
		}
		for _, k := range indexes {
			lines := enginebenchLines(t, name, job, expr, strconv.Itoa(k))
			if len(lines) != 1 || lines[0][0] != "run" {
				t.Fatalf("job %s: want one enginebench run, have %q", name, lines)
			}
			at := fmt.Sprintf("job %s, index %d: %q", name, k, lines[0])
			rc := checkRunArgs(t, at, lines[0], nil, -1, func(p string) string { return filepath.Join(repoRoot, p) })
			if mx := rc.pl.Matrix; mx == nil || mx.Index != k || mx.Count != len(indexes) || !slices.Equal(indexes, ints(mx.Count)) {
				t.Errorf("%s: runs %+v; want configuration %d of the spec, whose configurations are the matrix's indexes %v", at, mx, k, indexes)
			}
			up := uploadOf(job, expr, strconv.Itoa(k))
			if up == nil || up.With["path"] != rc.out || up.If != "always()" {
				t.Errorf("%s: want a step, if: always(), that uploads --out %s; have %+v", at, rc.out, up)
				continue
			}
			uploads[up.With["name"]] = up.With["path"]
		}
		if len(uploads) != len(indexes) {
			t.Errorf("job %s: %d artifact names for %d configurations: %v", name, len(uploads), len(indexes), uploads)
		}
	}
	if matrixJob == "" {
		t.Fatal("no matrix job")
	}
	checkCIReport(t, wf, matrixJob, uploads)
}

// ints returns 0 to n-1.
func ints(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// uploadOf returns job's upload-artifact step with expr replaced by value; nil if none.
func uploadOf(job ghJob, expr, value string) *ghStep {
	for _, st := range job.Steps {
		if strings.HasPrefix(st.Uses, "actions/upload-artifact@") {
			st.With = maps.Clone(st.With)
			for k, v := range st.With {
				st.With[k] = strings.ReplaceAll(v, expr, value)
			}
			return &st
		}
	}
	return nil
}

// checkCIReport checks the workflow's report job: after matrixJob (also when it failed), it
// downloads every artifact of uploads and reports exactly their directories.
func checkCIReport(t *testing.T, wf workflow, matrixJob string, uploads map[string]string) {
	t.Helper()
	for name, job := range wf.Jobs {
		if name == matrixJob {
			continue
		}
		if !slices.Contains(job.Needs, matrixJob) || job.If != "always()" {
			t.Errorf("job %s: want needs: [%s] and if: always() (report the configurations that ran)", name, matrixJob)
		}
		var into string
		for _, st := range job.Steps {
			if strings.HasPrefix(st.Uses, "actions/download-artifact@") {
				into = st.With["path"]
				for a := range uploads {
					if ok, _ := filepath.Match(st.With["pattern"], a); !ok {
						t.Errorf("job %s: download pattern %q misses the artifact %s", name, st.With["pattern"], a)
					}
				}
			}
		}
		lines := enginebenchLines(t, name, job, "", "")
		if into == "" || len(lines) != 1 || lines[0][0] != "report" {
			t.Fatalf("job %s: want a download of the artifacts and one enginebench report, have %q", name, lines)
		}
		var args []string
		var want, got []string
		for a := range uploads {
			want = append(want, filepath.Join(into, a)) // download-artifact puts each in PATH/NAME
		}
		for _, w := range lines[0] {
			if strings.ContainsAny(w, "*?[") { // the shell's glob, over the downloaded directories
				for _, d := range want {
					if ok, _ := filepath.Match(w, d); ok {
						args = append(args, d)
					}
				}
				continue
			}
			args = append(args, w)
		}
		p := parseCommand(t, "job "+name, args)
		got = p.dirs
		if slices.Sort(want); !slices.Equal(slices.Sorted(slices.Values(got)), want) {
			t.Errorf("job %s: reports %q, want the downloaded run directories %q", name, got, want)
		}
	}
}
