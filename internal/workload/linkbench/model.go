package linkbench

import (
	"fmt"
	"math/rand/v2"

	"github.com/enginebench/enginebench/internal/workload/linkbench/gen"
	"github.com/enginebench/enginebench/internal/workload/linkbench/profile"
	"github.com/enginebench/enginebench/internal/workload/linkbench/store"
)

// model holds the generators built once from the parameters. It is immutable and shared by
// every loader and requester, each of which draws from it with its own *rand.Rand.
type model struct {
	p    *Params
	prof *profile.Profile
	deg  *gen.OutDegree
	id2  *gen.ID2
	mix  *gen.OpMix
	// Which id1 a link read or a link write touches: correlated with out-degree or not,
	// blended with the profile's read and write blends.
	linkRead, linkWrite              *gen.Blend
	nodeRead, nodeUpdate, nodeDelete *gen.Access
	multiget                         *gen.Geometric
	// The payload generators: each client takes its own with payloads.
	linkPayload, linkUpdatePayload *gen.Payload
	nodePayload, nodeUpdatePayload *gen.Payload
	// content regenerates any row from its key and version.
	content *content
}

// payloads are the payload generators of one client.
type payloads struct {
	link, linkUpdate, node, nodeUpdate *gen.Payload
}

// payloads returns the payload generators of a client whose random stream is r: in the
// reference variant with motifs of its own, drawn from r (docs/fidelity.md).
func (m *model) payloads(r *rand.Rand) payloads {
	return payloads{
		link:       m.linkPayload.ForClient(r),
		linkUpdate: m.linkUpdatePayload.ForClient(r),
		node:       m.nodePayload.ForClient(r),
		nodeUpdate: m.nodeUpdatePayload.ForClient(r),
	}
}

// variant is the generators' variant of the run's.
func variant(p *Params) gen.Variant {
	if p.Corrected() {
		return gen.Corrected
	}
	return gen.Reference
}

func newModel(p *Params) (*model, error) {
	prof := p.prof
	start, end := p.StartID1, p.MaxID1
	m := &model{p: p, prof: prof}
	v := variant(p)
	m.deg = gen.NewOutDegree(prof.Dist.NLinks, start, end, p.LinkTypes, v)
	m.id2 = gen.NewID2(m.deg)
	m.mix = gen.NewOpMix(prof.Mix)
	var err error
	wrap := func(what string, e error) {
		if e != nil && err == nil {
			err = fmt.Errorf("%s: %w", what, e)
		}
	}
	var e error
	m.linkRead, e = gen.NewLinkReads(prof, start, end)
	wrap("link read access", e)
	m.linkWrite, e = gen.NewLinkWrites(prof, start, end, v)
	wrap("link write access", e)
	m.nodeRead, e = gen.NewNodeAccess(prof.NodeRead, start, end)
	wrap("node read access", e)
	m.nodeUpdate, e = gen.NewNodeAccess(prof.NodeUpdate, start, end)
	wrap("node update access", e)
	m.nodeDelete, e = gen.NewNodeAccess(prof.NodeDelete, start, end)
	wrap("node delete access", e)
	m.multiget, e = gen.NewMultigetSize(prof, v)
	wrap("multiget size", e)
	m.linkPayload, e = gen.NewPayload(prof.LinkAddMotif, prof.LinkDataMedian, prof.DataSigma, store.MaxLinkData, gen.SeedLinkAddMotif, v)
	wrap("link payload", e)
	m.linkUpdatePayload, e = gen.NewPayload(prof.LinkUpdateMotif, prof.LinkDataMedian, prof.DataSigma, store.MaxLinkData, gen.SeedLinkUpdateMotif, v)
	wrap("link update payload", e)
	m.nodePayload, e = gen.NewPayload(prof.NodeAddMotif, prof.NodeDataMedian, prof.DataSigma, store.MaxNodeData, gen.SeedNodeAddMotif, v)
	wrap("node payload", e)
	m.nodeUpdatePayload, e = gen.NewPayload(prof.NodeUpdateMotif, prof.NodeDataMedian, prof.DataSigma, store.MaxNodeData, gen.SeedNodeUpdateMotif, v)
	wrap("node update payload", e)
	if err != nil {
		return nil, err
	}
	m.content = newContent(p, m)
	return m, nil
}

// linkType returns the link type of type index t.
func linkType(t int) int64 { return store.FirstLinkType + int64(t) }
