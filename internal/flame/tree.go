package flame

import (
	"cmp"
	"slices"
)

// Tree is a flame graph's frames: the stacks merged by their common callers, every value CPU
// per operation.
type Tree struct {
	Root *Node
	// Unit is the unit of the CPU before it was divided (Stacks.Unit).
	Unit string
	// Diff is set for a differential tree (Diff): its nodes carry Base.
	Diff bool
	// Pruned is what Prune left out of the drawing.
	Pruned Pruned
}

// Node is a frame: a function called by its parent's.
type Node struct {
	Name string
	// Value is the CPU per operation of the frame and its callees, Self of the frame alone.
	Value, Self float64
	// Base and BaseSelf are, in a differential tree, the base's Value and Self at the same
	// stack (0 where the base has no such stack).
	Base, BaseSelf float64
	// Other is set on a node that stands for pruned siblings (Prune).
	Other bool
	// Children are sorted by name.
	Children []*Node
}

// RootName is the name of a tree's root, which stands for all the stacks.
const RootName = "all"

// Build is the tree of s with every value divided by ops; ops <= 0 (unknown) divides by 1.
func Build(s Stacks, ops float64) *Tree {
	t := &Tree{Root: &Node{Name: RootName}, Unit: s.Unit}
	add(t.Root, s, perOp(ops), false)
	sortTree(t.Root)
	return t
}

// Diff is the differential tree of other against base: other's stacks, and base's at the same
// places, each divided by its own operations, so that a frame's change is its change in CPU per
// operation. Stacks only base has are in the tree with a Value of 0.
func Diff(base, other Stacks, baseOps, otherOps float64) *Tree {
	t := &Tree{Root: &Node{Name: RootName}, Unit: other.Unit, Diff: true}
	add(t.Root, other, perOp(otherOps), false)
	add(t.Root, base, perOp(baseOps), true)
	sortTree(t.Root)
	return t
}

func perOp(ops float64) float64 {
	if ops <= 0 {
		return 1
	}
	return ops
}

// add adds each stack of s, divided by ops, to the tree under root: to Value and Self, or to
// Base and BaseSelf when base.
func add(root *Node, s Stacks, ops float64, base bool) {
	index := map[*Node]map[string]*Node{}
	for _, st := range s.Stacks {
		v := st.Value / ops
		n := root
		n.addValue(v, base)
		for _, f := range st.Frames {
			n = child(index, n, f)
			n.addValue(v, base)
		}
		if base {
			n.BaseSelf += v
		} else {
			n.Self += v
		}
	}
}

func (n *Node) addValue(v float64, base bool) {
	if base {
		n.Base += v
	} else {
		n.Value += v
	}
}

// child is n's child named name, made if n has none.
func child(index map[*Node]map[string]*Node, n *Node, name string) *Node {
	m := index[n]
	if m == nil {
		m = map[string]*Node{}
		for _, c := range n.Children {
			m[c.Name] = c
		}
		index[n] = m
	}
	c := m[name]
	if c == nil {
		c = &Node{Name: name}
		m[name] = c
		n.Children = append(n.Children, c)
	}
	return c
}

func sortTree(n *Node) {
	slices.SortFunc(n.Children, func(a, b *Node) int { return cmp.Compare(a.Name, b.Name) })
	for _, c := range n.Children {
		sortTree(c)
	}
}

// Depth is the number of levels of frames under the root.
func (t *Tree) Depth() int { return depth(t.Root) }

func depth(n *Node) int {
	d := 0
	for _, c := range n.Children {
		d = max(d, 1+depth(c))
	}
	return d
}

// Count is the number of frames of the tree, its root included.
func (t *Tree) Count() int { return count(t.Root) }

func count(n *Node) int {
	c := 1
	for _, ch := range n.Children {
		c += count(ch)
	}
	return c
}
