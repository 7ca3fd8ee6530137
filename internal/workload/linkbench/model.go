package linkbench

import (
	"fmt"

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
	linkPayload, linkUpdatePayload   *gen.Payload
	nodePayload, nodeUpdatePayload   *gen.Payload
}

func newModel(p *Params) (*model, error) {
	prof := p.prof
	start, end := p.StartID1, p.MaxID1
	m := &model{p: p, prof: prof}
	m.deg = gen.NewOutDegree(prof.Dist.NLinks, start, end, p.LinkTypes)
	m.id2 = gen.NewID2(m.deg)
	m.mix = gen.NewOpMix(prof.Mix)
	var err error
	wrap := func(what string, e error) {
		if e != nil && err == nil {
			err = fmt.Errorf("%s: %w", what, e)
		}
	}
	var e error
	m.linkRead, e = gen.NewLinkAccess(prof.ReadCorr, prof.ReadUncorr, prof.ReadUncorrBlend, start, end)
	wrap("link read access", e)
	// The write blend is the profile's own (the reference used the read settings for writes).
	m.linkWrite, e = gen.NewLinkAccess(prof.WriteCorr, prof.WriteUncorr, prof.WriteUncorrBlend, start, end)
	wrap("link write access", e)
	m.nodeRead, e = gen.NewNodeAccess(prof.NodeRead, start, end)
	wrap("node read access", e)
	m.nodeUpdate, e = gen.NewNodeAccess(prof.NodeUpdate, start, end)
	wrap("node update access", e)
	m.nodeDelete, e = gen.NewNodeAccess(prof.NodeDelete, start, end)
	wrap("node delete access", e)
	// The profile's maximum is inclusive; the generator's range is not.
	m.multiget, e = gen.NewGeometric(int64(prof.MultigetMin), int64(prof.MultigetMax)+1, prof.MultigetP)
	wrap("multiget size", e)
	m.linkPayload, e = gen.NewPayload(prof.LinkAddMotif, prof.LinkDataMedian, prof.DataSigma, store.MaxLinkData, gen.SeedLinkAddMotif)
	wrap("link payload", e)
	m.linkUpdatePayload, e = gen.NewPayload(prof.LinkUpdateMotif, prof.LinkDataMedian, prof.DataSigma, store.MaxLinkData, gen.SeedLinkUpdateMotif)
	wrap("link update payload", e)
	m.nodePayload, e = gen.NewPayload(prof.NodeAddMotif, prof.NodeDataMedian, prof.DataSigma, store.MaxNodeData, gen.SeedNodeAddMotif)
	wrap("node payload", e)
	m.nodeUpdatePayload, e = gen.NewPayload(prof.NodeUpdateMotif, prof.NodeDataMedian, prof.DataSigma, store.MaxNodeData, gen.SeedNodeUpdateMotif)
	wrap("node update payload", e)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// linkType returns the link type of type index t.
func linkType(t int) int64 { return store.FirstLinkType + int64(t) }
