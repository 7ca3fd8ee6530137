package flame

import (
	"cmp"
	"slices"
)

// OtherName is the name of a frame that stands for pruned siblings.
const OtherName = "(other)"

// PruneOptions bound what a flame graph draws.
type PruneOptions struct {
	// MinShare is the smallest share of the root's CPU a frame is drawn with (0.005 = 0.5%);
	// smaller siblings are merged into one OtherName frame, or left out when they are smaller
	// together too.
	MinShare float64
	// MaxDepth is the deepest level of frames drawn, MaxNodes the most frames; 0 is no limit.
	MaxDepth, MaxNodes int
}

// DefaultPrune keeps a page of several graphs usable: frames of 0.5% of the CPU and more,
// 64 levels and 600 frames at most.
func DefaultPrune() PruneOptions { return PruneOptions{MinShare: 0.005, MaxDepth: 64, MaxNodes: 600} }

// Pruned is what Prune took out of a tree. Every frame keeps its value, so the widths and the
// totals stay those of the whole profile: the CPU of what was taken out is drawn as its
// parent's, or as an OtherName frame.
type Pruned struct {
	// Frames is the number of frames taken out.
	Frames int
	// Value is their CPU per operation (each counted once, at the top of what was taken out),
	// Merged the part of it drawn as OtherName frames.
	Value, Merged float64
}

// Prune bounds t by o and records in t.Pruned what it took out.
func Prune(t *Tree, o PruneOptions) {
	if o.MaxDepth > 0 {
		cutDepth(t.Root, 0, o.MaxDepth, &t.Pruned)
	}
	if o.MinShare > 0 {
		mergeSmall(t.Root, o.MinShare*t.Root.Value, &t.Pruned)
	}
	if o.MaxNodes > 0 && t.Count() > o.MaxNodes {
		capNodes(t.Root, o.MaxNodes, &t.Pruned)
	}
}

// cutDepth takes out the children of the frames at level max.
func cutDepth(n *Node, level, max int, p *Pruned) {
	if level < max {
		for _, c := range n.Children {
			cutDepth(c, level+1, max, p)
		}
		return
	}
	p.cut(n.Children)
	n.Children = nil
}

func (p *Pruned) cut(ns []*Node) {
	for _, c := range ns {
		p.Frames += count(c)
		p.Value += c.Value
	}
}

// mergeSmall merges, under each frame, the children below min into one OtherName frame, or
// leaves them out when they are below min together.
func mergeSmall(n *Node, min float64, p *Pruned) {
	var keep, small []*Node
	for _, c := range n.Children {
		if c.Value >= min && !c.Other {
			keep = append(keep, c)
			mergeSmall(c, min, p)
		} else {
			small = append(small, c)
		}
	}
	if len(small) == 0 {
		return
	}
	p.cut(small)
	other := &Node{Name: OtherName, Other: true}
	for _, c := range small {
		other.Value += c.Value
		other.Base += c.Base
	}
	other.Self, other.BaseSelf = other.Value, other.Base
	if other.Value >= min {
		keep = append(keep, other)
		p.Merged += other.Value
		p.Frames-- // the OtherName frame is drawn
	}
	n.Children = keep
}

// capNodes keeps the max frames with the most CPU (a frame only with its parent) and takes
// out the rest.
func capNodes(root *Node, max int, p *Pruned) {
	type entry struct {
		n, parent *Node
		level     int
	}
	var all []entry
	var walk func(n, parent *Node, level int)
	walk = func(n, parent *Node, level int) {
		all = append(all, entry{n, parent, level})
		for _, c := range n.Children {
			walk(c, n, level+1)
		}
	}
	walk(root, nil, 0)
	slices.SortStableFunc(all, func(a, b entry) int {
		return cmp.Or(cmp.Compare(b.n.Value, a.n.Value), cmp.Compare(a.level, b.level))
	})
	kept := map[*Node]bool{}
	for _, e := range all {
		if len(kept) == max {
			break
		}
		if e.parent == nil || kept[e.parent] {
			kept[e.n] = true
		}
	}
	var drop func(n *Node)
	drop = func(n *Node) {
		var keep []*Node
		for _, c := range n.Children {
			if kept[c] {
				keep = append(keep, c)
				drop(c)
			} else {
				p.cut([]*Node{c})
			}
		}
		n.Children = keep
	}
	drop(root)
}
