package result

import "time"

// Shard marks the run of one shard of a run's clients (--shard I/N, docs/scale-out.md): the
// runs of the shards of one run share Run, by which their run directories are found together.
type Shard struct {
	// Index is the shard's 0-based index, Count the run's number of shards.
	Index int `json:"index"`
	Count int `json:"count"`
	// Run is the id every shard of the run shares (--shard-run, or from --start-at).
	Run string `json:"run"`
	// Clients are the clients (0-based) the shard ran: client c is shard c % Count's.
	Clients []int `json:"clients,omitempty"`
	// StartAt is the run's start time (--start-at); zero when not given.
	StartAt time.Time `json:"start_at,omitzero"`
	// TimeoutSeconds bounds each wait at a barrier for the other shards (--shard-timeout).
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty"`
	// Barrier is the table of the target database in which the shards met; "" for none.
	Barrier string `json:"barrier,omitempty"`
}

// Merged marks a run that `enginebench merge` made of the run directories of the shards of
// one run (docs/scale-out.md).
type Merged struct {
	// Run is the shards' run id; Count their number.
	Run   string `json:"run"`
	Count int    `json:"count"`
	// Shards are the shards' run directories, in the order of their index.
	Shards []string `json:"shards"`
	// Sample is the `enginebench sample` directory of the database host whose figures the
	// merged run's server-side costs are; "" when none was given (they are then absent).
	Sample string `json:"sample,omitempty"`
}
