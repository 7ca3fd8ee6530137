package plan

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/shard"
	"github.com/enginebench/enginebench/internal/workload"
)

// configIndex returns the mark of the run spec's configuration that o.ConfigIndex (else
// o.JobIndex) selects, and a notice saying so; nil when neither is given.
func configIndex(o Options) (*result.Matrix, string, error) {
	sp, value, from := o.Spec, "", "--config-index"
	if o.ConfigIndex != nil {
		value = *o.ConfigIndex
	} else if value, from = o.JobIndex, shard.JobIndexEnv; value == "" || sp == nil {
		return nil, "", nil // the index of a job that runs no run spec is not ours
	}
	if sp == nil {
		return nil, "", fmt.Errorf("--config-index %s selects a configuration of a run spec: give --config FILE.yaml", value)
	}
	n := len(sp.Configs)
	k, err := strconv.Atoi(strings.TrimSpace(value))
	switch {
	case err != nil:
		return nil, "", fmt.Errorf("%s %q: want the index of a configuration of %s, 0 to %d", from, value, sp.Path, n-1)
	case k < 0 || k >= n:
		return nil, "", fmt.Errorf("%s %d: %s has %d configurations, indexed 0 to %d", from, k, sp.Path, n, n-1)
	}
	m := &result.Matrix{Index: k, Count: n, Config: sp.Configs[k].Name, Spec: sp.Path, SpecSHA256: sp.SHA256()}
	return m, fmt.Sprintf("only configuration %s runs: index %d of the %d of %s (from %s)", m.Config, k, n, sp.Path, from), nil
}

// engineChecker is a workload that refuses engines its parameters cannot run on.
type engineChecker interface {
	CheckEngine(engine.Driver) error
}

// checkEngines asks the workload about the engine of every configuration before work starts.
func checkEngines(w workload.Benchmark, reg *engine.Registry, cps []Config) error {
	ch, ok := w.(engineChecker)
	if !ok {
		return nil
	}
	for _, c := range cps {
		d, err := reg.Lookup(c.Engine)
		if err != nil {
			return err
		}
		if err := ch.CheckEngine(d); err != nil {
			return fmt.Errorf("%sconfiguration %s: %w", c.at, c.Name, err)
		}
	}
	return nil
}

// checkShardConfigs refuses a sharded run of a configuration whose shards cannot meet: an
// embedded engine, or a managed server (each process would start its own).
func checkShardConfigs(o Options, reg *engine.Registry, cps []Config) error {
	if !o.Shard.Sharded() {
		return nil
	}
	for _, c := range cps {
		d, err := reg.Lookup(c.Engine)
		switch {
		case err != nil:
			return err
		case !d.Server:
			return fmt.Errorf("--shard %s: configuration %s: the embedded engine %s runs inside one process and cannot be sharded across processes", o.ShardFlag, c.Name, c.Engine)
		case c.DSN == "":
			return fmt.Errorf("--shard %s: configuration %s: a managed server is one process's own: the shards of a run meet on an existing server that each reaches (--dsn)", o.ShardFlag, c.Name)
		}
	}
	return nil
}

// shardMark returns run.json's mark of the shard, with its clients of clients; nil for a run
// without --shard.
func shardMark(o Options, clients int) *result.Shard {
	if o.ShardFlag == "" {
		return nil
	}
	sh := o.Shard
	m := &result.Shard{Index: sh.Index, Count: sh.Count, Run: sh.Run, StartAt: sh.StartAt, TimeoutSeconds: sh.Timeout.Seconds()}
	for c := 0; c < clients; c++ {
		if sh.Owns(c) {
			m.Clients = append(m.Clients, c)
		}
	}
	if sh.Sharded() {
		m.Barrier = shard.BarrierTable
	}
	return m
}

// repeatConfigs refuses repeats whose engines cannot be fresh each time (an existing server
// whose tables Keep keeps would hold the first repeat's rows) and announces the repeats.
func (p *Plan) repeatConfigs() error {
	k := p.opts.Repeat
	if k <= 1 {
		return nil
	}
	for _, c := range p.Configs {
		if c.DSN != "" && p.opts.Keep {
			return fmt.Errorf("%sconfiguration %s: --repeat %d with --keep on an existing server: each repeat needs the workload's tables gone, and --keep keeps them", c.at, c.Name, k)
		}
	}
	if a := p.opts.RepeatAuto; a != nil {
		if len(p.Configs) < 2 {
			return fmt.Errorf("--repeat auto with one configuration: it repeats until each configuration's ratio to the first is known within --confidence, and there is no other configuration to compare")
		}
		p.Notices = append(p.Notices, fmt.Sprintf("each configuration runs in rounds, interleaved (%s), each on a fresh engine, until every configuration's ratio to %s is known within ±%v%% (95%% interval), %d rounds at least and %d at most",
			repeatOrder(p.Configs), p.Configs[0].Name, a.TargetPct, workload.MinAutoRounds, k))
		return nil
	}
	p.Notices = append(p.Notices, fmt.Sprintf("each configuration runs %d times, interleaved (%s), each on a fresh engine", k, repeatOrder(p.Configs)))
	return nil
}

// repeatOrder names the first round of repeats, "a#1, b#1, a#2, ...", shortened after a few.
func repeatOrder(cps []Config) string {
	var names []string
	for _, c := range cps {
		names = append(names, c.Name+"#1")
	}
	if len(cps) > 0 {
		names = append(names, cps[0].Name+"#2")
	}
	return strings.Join(names, ", ") + ", ..."
}

// existingCheckTimeout bounds the look for a workload's tables on an existing server.
const existingCheckTimeout = time.Minute

// checkExistingTables refuses a run on an existing server that already has the workload's
// tables (an earlier run left them), with the SQL that drops them.
func (p *Plan) checkExistingTables() error {
	for _, c := range p.Configs {
		if c.DSN == "" {
			continue
		}
		at := fmt.Sprintf("%sconfiguration %s (DSN from %s)", c.at, c.Name, c.dsnFrom)
		found, drop, err := existingTables(p.Registry, c.Config, p.Workload.Tables())
		if err != nil {
			return fmt.Errorf("%s: %v", at, err)
		}
		if len(found) > 0 {
			return fmt.Errorf("%s: the existing server already has the %s workload's tables %s (an earlier run left them?): drop them (%s) or give --drop-existing",
				at, p.Workload.Name(), strings.Join(found, ", "), strings.Join(drop, "; "))
		}
	}
	return nil
}

// existingTables opens cfg's existing server and returns which of tables it has, and the SQL
// that drops them.
func existingTables(reg *engine.Registry, cfg engine.Config, tables []string) (found, drop []string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), existingCheckTimeout)
	defer cancel()
	eng, err := reg.Open(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	defer func() { err = errors.Join(err, eng.Close()) }()
	switch db := eng.(type) {
	case sqldb.DB:
		if found, err = sqldb.ExistingTables(ctx, db, tables); err != nil {
			return nil, nil, err
		}
		return found, sqldb.DropTablesSQL(db.Dialect(), found), nil
	case doc.DB:
		if found, err = doc.ExistingCollections(ctx, db, tables); err != nil {
			return nil, nil, err
		}
		return found, doc.DropCommands(found), nil
	}
	return nil, nil, nil
}
