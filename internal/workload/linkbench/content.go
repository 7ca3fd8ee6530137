package linkbench

import (
	"math/rand/v2"

	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/linkbench/gen"
)

// Every payload the load and the requests write is a pure function of the run's seed, the row's
// key and its version, so that verification can check every row it reads against its own key
// and version (docs/linkbench.md, Verification). The version column says who wrote the row:
//
//	links  0                   the load (as in the reference)
//	       1 + k + 2(i + R m)  a request of requester i (k: 0 ADD_LINK, 1 UPDATE_LINK; m random)
//	nodes  1                   the load (as in the reference)
//	       2 + i + R m         UPDATE_NODE of requester i (m random)
//	       2^62 + i 2^40 + s   ADD_NODE number s of requester i
//
// where R is the number of requesters. A link's version is an INT (31 bits), a node's a BIGINT.
// The payload and a loaded link's time are drawn from a random stream seeded with a hash of the
// seed, the key and the version; the motif (per client in the reference variant) is the one
// of the client the version names: loader slot (id1 - startid1) / load chunk mod loaders for
// the load's links, requester i for the requests.
const (
	loadLinkVersion = 0
	loadNodeVersion = 1
	// linkVersionLimit bounds a link's version (the column is an INT).
	linkVersionLimit = 1<<31 - 1
	// nodeAddBase marks the version of a node ADD_NODE wrote; the requester is in the bits
	// from nodeAddShift up, the add's number below.
	nodeAddBase  = int64(1) << 62
	nodeAddShift = 40
	// nodeUpdateSpan bounds the random part of an UPDATE_NODE's version.
	nodeUpdateSpan = int64(1) << 40
)

// Stream kinds: each row kind hashes its key under a kind of its own.
const (
	kindLoadLink uint64 = iota + 0x6c62636f6e74656e
	kindRequestLink
	kindLoadNode
	kindUpdateNode
	kindAddNode
)

// content holds the payload generators of every client, so that any client, and verification,
// can regenerate any row. It is immutable and shared.
type content struct {
	seed       uint64
	start      int64
	chunk      int64
	requesters int64
	// loaders has the link generator of each loader slot, nodeLoader the node loader's; the
	// request generators have one per requester.
	loaders             []*gen.Payload
	nodeLoader          *gen.Payload
	addLink, updateLink []*gen.Payload
	addNode, updateNode []*gen.Payload
}

// newContent builds the generators of every client from the model's: the loaders' (drawn from
// each loader's stream), the node loader's and the requesters' (from each requester's).
func newContent(p *Params, m *model) *content {
	c := &content{seed: p.Seed, start: p.StartID1, chunk: int64(p.LoadChunk), requesters: int64(p.Requesters)}
	for i := 0; i < p.Loaders; i++ {
		c.loaders = append(c.loaders, m.linkPayload.ForClient(rand.New(rand.NewPCG(p.Seed, uint64(i)+1))))
	}
	c.nodeLoader = m.nodePayload.ForClient(rand.New(rand.NewPCG(p.Seed, 0)))
	for i := 0; i < p.Requesters; i++ {
		pay := m.payloads(requesterRand(p.Seed, i))
		c.addLink = append(c.addLink, pay.link)
		c.updateLink = append(c.updateLink, pay.linkUpdate)
		c.addNode = append(c.addNode, pay.node)
		c.updateNode = append(c.updateNode, pay.nodeUpdate)
	}
	return c
}

// requesterRand returns the random stream of requester i.
func requesterRand(seed uint64, i int) *rand.Rand {
	return rand.New(rand.NewPCG(seed^0x7265717565737473, uint64(i)+1))
}

// rowRand is a random stream that is reseeded for each row; it allocates nothing.
type rowRand struct {
	pcg rand.PCG
	r   *rand.Rand
}

func newRowRand() *rowRand {
	rr := &rowRand{}
	rr.r = rand.New(&rr.pcg)
	return rr
}

// at reseeds the stream for the row of kind with key (a, b, c) and version v.
func (rr *rowRand) at(seed, kind uint64, a, b, c, v int64) *rand.Rand {
	h := workload.Mix64(seed ^ kind)
	h = workload.Mix64(h ^ uint64(a))
	h = workload.Mix64(h ^ uint64(b))
	h = workload.Mix64(h ^ uint64(c))
	h = workload.Mix64(h ^ uint64(v))
	rr.pcg.Seed(h, workload.Mix64(h^kind))
	return rr.r
}

// loadLink writes over dst the payload of the loaded link (id1, linkType, id2) and returns it
// with the link's time: spread over the 2^32 ms before loadMs (the load's start), so that id2
// and time are not correlated.
func (c *content) loadLink(rr *rowRand, dst []byte, loadMs, id1, linkType, id2 int64) ([]byte, int64) {
	r := rr.at(c.seed, kindLoadLink, id1, linkType, id2, loadLinkVersion)
	tm := loadMs - 1<<31 + int64(int32(r.Uint32()))
	slot := (id1 - c.start) / c.chunk % int64(len(c.loaders))
	return c.loaders[slot].Fill(r, dst), tm
}

// linkVersion draws the version of a link requester i writes (update: UPDATE_LINK).
func (c *content) linkVersion(r *rand.Rand, i int, update bool) int64 {
	kind := int64(0)
	if update {
		kind = 1
	}
	m := r.Int64N(linkVersionLimit / (2 * c.requesters))
	return 1 + kind + 2*(int64(i)+c.requesters*m)
}

// requestLink writes over dst the payload of the link (id1, linkType, id2) a request wrote
// with version v; ok is false for a version no request writes.
func (c *content) requestLink(rr *rowRand, dst []byte, id1, linkType, id2, v int64) (data []byte, ok bool) {
	if v < 1 || v > linkVersionLimit {
		return dst[:0], false
	}
	w := v - 1
	gens := c.addLink
	if w&1 == 1 {
		gens = c.updateLink
	}
	r := rr.at(c.seed, kindRequestLink, id1, linkType, id2, v)
	return gens[(w>>1)%c.requesters].Fill(r, dst), true
}

// loadNode writes over dst the payload of the loaded node id.
func (c *content) loadNode(rr *rowRand, dst []byte, id int64) []byte {
	return c.nodeLoader.Fill(rr.at(c.seed, kindLoadNode, id, 0, 0, loadNodeVersion), dst)
}

// nodeUpdateVersion draws the version of a node requester i updates.
func (c *content) nodeUpdateVersion(r *rand.Rand, i int) int64 {
	return 2 + int64(i) + c.requesters*r.Int64N(nodeUpdateSpan)
}

// nodeAddVersion is the version of the node requester i adds as its add number seq.
func nodeAddVersion(i int, seq int64) int64 { return nodeAddBase | int64(i)<<nodeAddShift | seq }

// isNodeAdd reports whether v is the version of an ADD_NODE.
func isNodeAdd(v int64) bool { return v&nodeAddBase != 0 }

// updatedNode writes over dst the payload of node id updated with version v; ok is false for
// a version no UPDATE_NODE writes.
func (c *content) updatedNode(rr *rowRand, dst []byte, id, v int64) (data []byte, ok bool) {
	if v < 2 || isNodeAdd(v) {
		return dst[:0], false
	}
	r := rr.at(c.seed, kindUpdateNode, id, 0, 0, v)
	return c.updateNode[(v-2)%c.requesters].Fill(r, dst), true
}

// addedNode writes over dst the payload of a node added with version v (whatever id the engine
// gave it); ok is false for a version no ADD_NODE writes.
func (c *content) addedNode(rr *rowRand, dst []byte, v int64) (data []byte, ok bool) {
	i := (v &^ nodeAddBase) >> nodeAddShift
	if !isNodeAdd(v) || v < 0 || i >= c.requesters {
		return dst[:0], false
	}
	return c.addNode[i].Fill(rr.at(c.seed, kindAddNode, 0, 0, 0, v), dst), true
}
