package plan

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/redact"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runspec"
	"github.com/enginebench/enginebench/internal/workload"
)

// configs builds the engine configurations of the run: the run spec's, or one per engine of
// o.Engines; then applies o.Set, o.DSN, ENGINEBENCH_DSN (read with o.Getenv) and o.DBPID, and
// checks every configuration, or with m keeps and checks only the one that runs. notices are
// to be printed once every check has passed. w is the workload, whose preset may cap memory
// (applyMemoryLimits).
func configs(reg *engine.Registry, o Options, m *result.Matrix, w workload.Workload) (cps []Config, notices []string, err error) {
	sp := o.Spec
	if cps, err = namedConfigs(o); err != nil {
		return nil, nil, err
	}
	names := make([]string, len(cps))
	for i, c := range cps {
		names[i] = c.Name
	}
	if err := applySet(cps, o.Set, sp != nil); err != nil {
		return nil, nil, err
	}
	if err := applyDSN(cps, o.DSN, names); err != nil {
		return nil, nil, err
	}
	if err := applyDSNEnv(cps, sp, o.Getenv); err != nil {
		return nil, nil, err
	}
	if env := o.Getenv("ENGINEBENCH_DSN"); env != "" && len(cps) == 1 && cps[0].DSN == "" {
		if d, err := reg.Lookup(cps[0].Engine); err == nil && d.Server {
			cps[0].DSN, cps[0].dsnFrom = env, "ENGINEBENCH_DSN"
			notices = append(notices, fmt.Sprintf("configuration %s runs on the existing server of ENGINEBENCH_DSN", cps[0].Name))
		}
	}
	if err := applyDBPID(cps, o.DBPID, names); err != nil {
		return nil, nil, err
	}
	if err := applyMemoryLimits(reg, cps, o.MemoryLimit, w); err != nil {
		return nil, nil, err
	}
	if m != nil {
		cps = cps[m.Index : m.Index+1] // the others are checked where they run
	}
	for i := range cps {
		cps[i].Keep = o.Keep
		if err := checkConfig(reg, &cps[i], sp != nil); err != nil {
			return nil, nil, err
		}
	}
	return cps, notices, nil
}

// namedConfigs returns the configurations the run names, before any flag applies: the run
// spec's, or one per entry of o.Engines with no settings: ENGINE (named for it) or NAME=ENGINE,
// so that one engine can be several configurations (versions side by side: pg15=postgres,
// pg17=postgres with --set pg17.bindir=...).
func namedConfigs(o Options) ([]Config, error) {
	var cps []Config
	if sp := o.Spec; sp != nil {
		for _, e := range sp.Configs {
			cps = append(cps, Config{
				Config: engine.Config{Name: e.Name, Engine: e.Engine, Settings: maps.Clone(e.Settings), DSN: e.DSN, DBPID: e.DBPID},
				at:     e.Where(sp.Path) + ": ", dsnFrom: e.DSNFrom, dataDir: e.DataDir})
		}
		return cps, nil
	}
	names := splitList(o.Engines)
	if len(names) == 0 {
		return nil, fmt.Errorf("--engines is empty")
	}
	for _, n := range names {
		name, eng, named := strings.Cut(n, "=")
		if !named {
			eng = name
		}
		switch {
		case named && (!runspec.ValidName(name) || eng == ""):
			return nil, fmt.Errorf("--engines %q: want NAME=ENGINE, NAME of letters, digits, '-', '_' and '.' starting with a letter or digit", n)
		case slices.ContainsFunc(cps, func(c Config) bool { return c.Name == name }) && !named:
			return nil, fmt.Errorf("engine %q given twice in --engines: name each configuration (NAME=%s)", n, n)
		case slices.ContainsFunc(cps, func(c Config) bool { return c.Name == name }):
			return nil, fmt.Errorf("configuration name %q given twice in --engines", name)
		}
		cps = append(cps, Config{Config: engine.Config{Name: name, Engine: eng, Settings: map[string]string{}}})
	}
	return cps, nil
}

// splitList splits a comma-separated list, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// applyDSNEnv reads the DSN of each run spec configuration with dsn_env: from its
// environment variable (with getenv), unless --dsn gave one.
func applyDSNEnv(cps []Config, sp *runspec.Spec, getenv func(string) string) error {
	if sp == nil {
		return nil
	}
	for i, e := range sp.Configs {
		if e.DSNEnv == "" || cps[i].dsnFrom == "--dsn" {
			continue
		}
		if cps[i].DSN = getenv(e.DSNEnv); cps[i].DSN == "" {
			return fmt.Errorf("%sconfiguration %s: dsn_env: the environment variable %s is not set", cps[i].at, e.Name, e.DSNEnv)
		}
		cps[i].dsnFrom = "environment variable " + e.DSNEnv
	}
	return nil
}

// checkConfig checks a configuration once every flag has applied: a server process id and a
// data directory need an existing server, the process exists, and the engine accepts it.
// fromSpec says whether it comes from a run spec, for the error's prefix.
func checkConfig(reg *engine.Registry, c *Config, fromSpec bool) error {
	if c.DSN == "" && c.DBPID != 0 {
		return fmt.Errorf("%sconfiguration %s: a server process id (--db-pid, db_pid) needs an existing server: give its DSN (--dsn, dsn, dsn_env or ENGINEBENCH_DSN)", c.at, c.Name)
	}
	if c.DSN == "" && c.dataDir != "" {
		return fmt.Errorf("%sconfiguration %s: data_dir names an existing server's data directory: give its DSN (--dsn, dsn, dsn_env or ENGINEBENCH_DSN)", c.at, c.Name)
	}
	if c.DBPID != 0 {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", c.DBPID)); err != nil {
			return fmt.Errorf("%sconfiguration %s: server process %d: no such process on this host", c.at, c.Name, c.DBPID)
		}
	}
	if err := reg.Check(c.Config); err != nil {
		prefix := c.at
		if fromSpec || c.DSN != "" {
			prefix += "configuration " + c.Name
			if c.DSN != "" {
				prefix += " (DSN from " + c.dsnFrom + ")"
			}
			prefix += ": "
		}
		return fmt.Errorf("%s%w", prefix, err)
	}
	return nil
}

// applySet applies --set CONFIG.SETTING=VALUE: CONFIG is the longest configuration name or,
// failing that, engine name that prefixes the key (names and settings may hold dots).
func applySet(cps []Config, set []string, fromSpec bool) error {
	for _, s := range set {
		key, val, ok := strings.Cut(s, "=")
		target, byEngine := "", false
		for _, c := range cps {
			for _, n := range []string{c.Name, c.Engine} {
				if strings.HasPrefix(key, n+".") && len(key) > len(n)+1 && len(n) > len(target) {
					target, byEngine = n, n != c.Name
				}
			}
		}
		if slices.ContainsFunc(cps, func(c Config) bool { return c.Name == target }) {
			byEngine = false // a configuration's name wins over an engine's
		}
		if !ok || key == "" {
			return fmt.Errorf("--set %q: want CONFIG.SETTING=VALUE", s)
		}
		if target == "" {
			first, _, ok2 := strings.Cut(key, ".")
			switch {
			case !ok2 || first == "":
				return fmt.Errorf("--set %q: want CONFIG.SETTING=VALUE", s)
			case fromSpec:
				return fmt.Errorf("--set %q: %q is neither a configuration nor an engine of the run spec", s, first)
			default:
				return fmt.Errorf("--set %q: engine %q is not in --engines", s, first)
			}
		}
		setting := key[len(target)+1:]
		for i := range cps {
			if cps[i].Name == target || (byEngine && cps[i].Engine == target) {
				cps[i].Settings[setting] = val
			}
		}
	}
	return nil
}

// applyDSN applies --dsn DSN (one configuration) and --dsn CONFIG=DSN. A DSN may itself hold
// '=' (host=/tmp user=u): the CONFIG= form is recognized only by a configuration's name.
// Messages never show a DSN.
func applyDSN(cps []Config, dsns, names []string) error {
	given := map[string]bool{}
	for _, v := range dsns {
		i, dsn := -1, v
		if name, rest, ok := strings.Cut(v, "="); ok {
			if j := slices.Index(names, name); j >= 0 {
				i, dsn = j, rest
			}
		}
		if i < 0 {
			if len(cps) != 1 {
				return fmt.Errorf("--dsn %s: the run has %d configurations (%s): give --dsn CONFIG=DSN for each server",
					RedactDSNFlag(v), len(cps), strings.Join(names, ", "))
			}
			i = 0
		}
		if dsn == "" {
			return fmt.Errorf("--dsn %s: the DSN is empty", RedactDSNFlag(v))
		}
		if given[cps[i].Name] {
			return fmt.Errorf("--dsn is given twice for configuration %s", cps[i].Name)
		}
		given[cps[i].Name] = true
		cps[i].DSN, cps[i].dsnFrom = dsn, "--dsn"
	}
	return nil
}

// RedactDSNFlag returns the value of a --dsn flag as it may be shown: CONFIG=<redacted> or
// <redacted>. Only a prefix that is a valid configuration name is kept.
func RedactDSNFlag(v string) string {
	if name, _, ok := strings.Cut(v, "="); ok && runspec.ValidName(name) {
		return name + "=" + redact.Marker
	}
	return redact.Marker
}

// applyDBPID applies --db-pid N (one configuration) and --db-pid CONFIG=N.
func applyDBPID(cps []Config, pids, names []string) error {
	given := map[string]bool{}
	for _, v := range pids {
		i, num := -1, v
		if name, rest, ok := strings.Cut(v, "="); ok {
			if i = slices.Index(names, name); i < 0 {
				return fmt.Errorf("--db-pid %q: no configuration is called %q (configurations: %s)", v, name, strings.Join(names, ", "))
			}
			num = rest
		} else if len(cps) != 1 {
			return fmt.Errorf("--db-pid %q: the run has %d configurations (%s): give --db-pid CONFIG=N", v, len(cps), strings.Join(names, ", "))
		} else {
			i = 0
		}
		pid, err := strconv.Atoi(num)
		if err != nil || pid <= 0 {
			return fmt.Errorf("--db-pid %q: want a process id (a positive integer)", v)
		}
		if given[cps[i].Name] {
			return fmt.Errorf("--db-pid is given twice for configuration %s", cps[i].Name)
		}
		given[cps[i].Name] = true
		cps[i].DBPID = pid
	}
	return nil
}
