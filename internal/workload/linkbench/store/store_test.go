package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv/null"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/runner"
)

const lt0 = FirstLinkType

// hooks makes c report every link and node its reads return (copies, in order).
func hooks(t *testing.T, c Client) (links *[]Link, nodes *[]Node) {
	t.Helper()
	links, nodes = new([]Link), new([]Node)
	onLink := func(l *Link) {
		cp := *l
		cp.Data = bytes.Clone(l.Data)
		*links = append(*links, cp)
	}
	onNode := func(n *Node) {
		cp := *n
		cp.Data = bytes.Clone(n.Data)
		*nodes = append(*nodes, cp)
	}
	switch c := c.(type) {
	case *sqlClient:
		c.onLink, c.onNode = onLink, onNode
	case *kvClient:
		c.onLink, c.onNode = onLink, onNode
	case *docClient:
		c.onLink, c.onNode = onLink, onNode
	default:
		t.Fatalf("client %T has no hooks", c)
	}
	return links, nodes
}

func addLink(t *testing.T, c Client, l Link, want WriteResult) {
	t.Helper()
	got, err := c.AddLink(context.Background(), &l)
	if err != nil {
		t.Fatalf("AddLink(%d, %d, %d): %v", l.ID1, l.LinkType, l.ID2, err)
	}
	if got != want {
		t.Errorf("AddLink(%d, %d, %d) = %v, want %v", l.ID1, l.LinkType, l.ID2, got, want)
	}
}

func updateLink(t *testing.T, c Client, l Link, want WriteResult) {
	t.Helper()
	got, err := c.UpdateLink(context.Background(), &l)
	if err != nil {
		t.Fatalf("UpdateLink(%d, %d, %d): %v", l.ID1, l.LinkType, l.ID2, err)
	}
	if got != want {
		t.Errorf("UpdateLink(%d, %d, %d) = %v, want %v", l.ID1, l.LinkType, l.ID2, got, want)
	}
}

func deleteLink(t *testing.T, c Client, id1, lt, id2 int64, expunge, want bool) {
	t.Helper()
	found, err := c.DeleteLink(context.Background(), id1, lt, id2, expunge)
	if err != nil {
		t.Fatalf("DeleteLink(%d, %d, %d, %v): %v", id1, lt, id2, expunge, err)
	}
	if found != want {
		t.Errorf("DeleteLink(%d, %d, %d, %v) found %v, want %v", id1, lt, id2, expunge, found, want)
	}
}

func wantCount(t *testing.T, c Client, id1, lt, want int64) {
	t.Helper()
	n, err := c.CountLinks(context.Background(), id1, lt)
	if err != nil {
		t.Fatalf("CountLinks(%d, %d): %v", id1, lt, err)
	}
	if n != want {
		t.Errorf("CountLinks(%d, %d) = %d, want %d", id1, lt, n, want)
	}
}

// checkResult is what verification reads of a range of id1s, summed up.
type checkResult struct {
	// Visible maps (id1, link type) to its visible links (through id1_type once it exists,
	// else through the primary key); Stored to counttable.count.
	Visible, Stored map[[2]int64]int64
}

// check reads the id1s [lo, hi) with the scans of verification (link types lt0 and lt0+1).
// Once id1_type exists it also checks that the primary key and id1_type hold the same links.
func check(t *testing.T, st Store, lo, hi int64) *checkResult {
	t.Helper()
	ctx := context.Background()
	r := &checkResult{Visible: map[[2]int64]int64{}, Stored: map[[2]int64]int64{}}
	var byPK, byIndex []Link
	keep := func(into *[]Link) func(*Link) error {
		return func(l *Link) error {
			cp := *l
			cp.Data = bytes.Clone(l.Data)
			*into = append(*into, cp)
			return nil
		}
	}
	for lt := int64(lt0); lt < lt0+2; lt++ {
		if err := st.ScanLinks(ctx, lt, lo, hi, keep(&byPK)); err != nil {
			t.Fatalf("ScanLinks(%d, %d, %d): %v", lt, lo, hi, err)
		}
	}
	visible := byPK
	if indexed(st) {
		if err := st.ScanIndex(ctx, lo, hi, keep(&byIndex)); err != nil {
			t.Fatalf("ScanIndex(%d, %d): %v", lo, hi, err)
		}
		if !sameLinks(byPK, byIndex) {
			t.Errorf("id1 %d..%d: the primary key has %d links, id1_type %d, or their contents differ", lo, hi-1, len(byPK), len(byIndex))
		}
		visible = byIndex
	}
	for _, l := range visible {
		if l.Visibility == Visible {
			r.Visible[[2]int64{l.ID1, l.LinkType}]++
		}
	}
	err := st.ScanCounts(ctx, lo, hi, func(n *Count) error {
		r.Stored[[2]int64{n.ID1, n.LinkType}] = n.Count
		return nil
	})
	if err != nil {
		t.Fatalf("ScanCounts(%d, %d): %v", lo, hi, err)
	}
	return r
}

// indexed reports whether id1_type exists in st.
func indexed(st Store) bool {
	switch s := st.(type) {
	case *sqlStore:
		return s.indexed.Load()
	case *kvStore:
		return s.indexed.Load()
	case *docStore:
		return s.indexed.Load()
	}
	return false
}

// sameLinks reports whether a and b hold the same links, in any order.
func sameLinks(a, b []Link) bool {
	key := func(l Link) string {
		return fmt.Sprintf("%d %d %d %d %d %d %x", l.ID1, l.LinkType, l.ID2, l.Visibility, l.Time, l.Version, l.Data)
	}
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, l := range a {
		seen[key(l)]++
	}
	for _, l := range b {
		if seen[key(l)]--; seen[key(l)] < 0 {
			return false
		}
	}
	return true
}

func rows(t *testing.T, st Store) Rows {
	t.Helper()
	r, err := st.Rows(context.Background())
	if err != nil {
		t.Fatalf("Rows: %v", err)
	}
	return r
}

func testLinks(t *testing.T, e *testEngine) {
	st := e.store(t, Options{})
	c := client(t, st)
	ctx := context.Background()
	l := Link{ID1: 10, LinkType: lt0, ID2: 11, Visibility: Visible, Data: []byte("a"), Time: 1000}
	wantCount(t, c, 10, lt0, 0) // no row
	addLink(t, c, l, Inserted)
	wantCount(t, c, 10, lt0, 1)
	l.Data, l.Time, l.Version = []byte("bb"), 2000, 1
	addLink(t, c, l, Updated)
	wantCount(t, c, 10, lt0, 1)
	deleteLink(t, c, 10, lt0, 11, false, true) // hidden
	wantCount(t, c, 10, lt0, 0)
	deleteLink(t, c, 10, lt0, 11, false, true) // already hidden: no change
	wantCount(t, c, 10, lt0, 0)
	l.Time = 3000
	addLink(t, c, l, Revealed)
	wantCount(t, c, 10, lt0, 1)
	deleteLink(t, c, 10, lt0, 11, true, true) // expunged
	wantCount(t, c, 10, lt0, 0)
	deleteLink(t, c, 10, lt0, 11, true, false)
	deleteLink(t, c, 10, lt0, 11, false, false)
	addLink(t, c, l, Inserted)
	l.ID2 = 12
	addLink(t, c, l, Inserted)
	addLink(t, c, Link{ID1: 10, LinkType: lt0 + 1, ID2: 12, Time: 5}, Inserted) // another type; Visibility is ignored
	wantCount(t, c, 10, lt0, 2)
	wantCount(t, c, 10, lt0+1, 1)
	deleteLink(t, c, 10, lt0, 99, false, false)
	deleteLink(t, c, 10, lt0, 11, false, true)
	deleteLink(t, c, 10, lt0, 11, true, true) // a hidden link expunged: no count change
	wantCount(t, c, 10, lt0, 1)
	// UPDATE_LINK inserts a missing link and updates an existing one.
	updateLink(t, c, Link{ID1: 10, LinkType: lt0, ID2: 13, Time: 6}, Inserted)
	updateLink(t, c, Link{ID1: 10, LinkType: lt0, ID2: 13, Time: 7, Data: []byte("c")}, Updated)
	deleteLink(t, c, 10, lt0, 13, false, true)
	updateLink(t, c, Link{ID1: 10, LinkType: lt0, ID2: 13, Time: 8}, Revealed)
	deleteLink(t, c, 10, lt0, 13, true, true)
	wantCount(t, c, 10, lt0, 1)

	// A visible link whose count is 0, and one without a count row.
	if err := c.InsertLinks(ctx, []Link{
		{ID1: 20, LinkType: lt0, ID2: 21, Visibility: Visible, Time: 1},
		{ID1: 30, LinkType: lt0, ID2: 31, Visibility: Visible, Time: 1},
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.InsertCounts(ctx, []Count{{ID1: 20, LinkType: lt0, Count: 0, Time: 1}}); err != nil {
		t.Fatal(err)
	}
	deleteLink(t, c, 20, lt0, 21, false, true)
	wantVisible := map[[2]int64]int64{{10, lt0}: 1, {10, lt0 + 1}: 1}
	wantStored := map[[2]int64]int64{{10, lt0}: 1, {10, lt0 + 1}: 1, {20, lt0}: 0, {30, lt0}: 0}
	wantRows := Rows{LinksByPK: 3, LinksByIndex: 3, Counts: 4} // (10, lt0, 12), (10, lt0+1, 12), (20, lt0, 21) hidden
	switch {
	case e.docDB != nil && e.fork:
		// mdcallag's count upsert takes a count of 0 to -1, and creates a missing one at -1.
		wantCount(t, c, 20, lt0, -1)
		deleteLink(t, c, 30, lt0, 31, true, true)
		wantCount(t, c, 30, lt0, -1)
		wantStored[[2]int64{20, lt0}], wantStored[[2]int64{30, lt0}] = -1, -1
	case e.shared == nil:
		// The KV store never takes a count below 0 and creates a missing one; so does
		// LinkbenchX's count upsert and reset of a negative count.
		wantCount(t, c, 20, lt0, 0)
		deleteLink(t, c, 30, lt0, 31, true, true)
		wantCount(t, c, 30, lt0, 0)
	default:
		// The SQL store sends the reference's UPDATE count = count - 1: it goes below 0, and
		// without a count row the deletion fails and is rolled back.
		wantCount(t, c, 20, lt0, -1)
		if _, err := c.DeleteLink(ctx, 30, lt0, 31, true); err == nil || !strings.Contains(err.Error(), "0 rows updated") {
			t.Errorf("DeleteLink of a link without a count row: %v", err)
		}
		wantStored[[2]int64{20, lt0}] = -1
		delete(wantStored, [2]int64{30, lt0})
		wantVisible[[2]int64{30, lt0}] = 1
		wantRows = Rows{LinksByPK: 4, LinksByIndex: 4, Counts: 3}
	}

	r := check(t, st, 0, 100)
	if !reflect.DeepEqual(r.Visible, wantVisible) || !reflect.DeepEqual(r.Stored, wantStored) {
		t.Errorf("Check = visible %v, stored %v; want %v, %v", r.Visible, r.Stored, wantVisible, wantStored)
	}
	if r := check(t, st, 11, 20); len(r.Visible)+len(r.Stored) != 0 {
		t.Errorf("Check(11, 20) = %+v, want nothing", r)
	}
	if got := rows(t, st); got != wantRows {
		t.Errorf("Rows = %+v, want %+v", got, wantRows)
	}
}

func testLinkList(t *testing.T, e *testEngine) {
	st := e.store(t, Options{})
	c := client(t, st)
	ctx := context.Background()
	const id1 = 100
	for i := int64(1); i <= 20; i++ {
		addLink(t, c, Link{ID1: id1, LinkType: lt0, ID2: 200 + i, Data: []byte{byte(i)}, Time: 1000 + 10*i, Version: i}, Inserted)
	}
	addLink(t, c, Link{ID1: id1, LinkType: lt0 + 1, ID2: 1, Time: 5000}, Inserted)
	addLink(t, c, Link{ID1: id1 + 1, LinkType: lt0, ID2: 1, Time: 5000}, Inserted)
	deleteLink(t, c, id1, lt0, 205, false, true)
	deleteLink(t, c, id1, lt0, 206, false, true)
	got, _ := hooks(t, c)

	list := func(maxTime int64, offset, limit int) ([]Link, int64) {
		t.Helper()
		*got = (*got)[:0]
		n, last, err := c.GetLinkList(ctx, id1, lt0, maxTime, offset, limit)
		if err != nil {
			t.Fatalf("GetLinkList(%d, %d, %d): %v", maxTime, offset, limit, err)
		}
		if n != len(*got) {
			t.Fatalf("GetLinkList(%d, %d, %d) = %d rows, read %d", maxTime, offset, limit, n, len(*got))
		}
		if n > 0 && last != (*got)[n-1].Time {
			t.Errorf("GetLinkList(%d, %d, %d): last time %d, the last row's is %d", maxTime, offset, limit, last, (*got)[n-1].Time)
		}
		return append([]Link(nil), *got...), last
	}
	all, _ := list(math.MaxInt64, 0, 10000)
	if len(all) != 18 {
		t.Fatalf("%d links listed, want 18 (20 minus 2 hidden)", len(all))
	}
	for i, l := range all {
		want := int64(20 - i)
		if want <= 6 {
			want -= 2 // 205 and 206 are hidden
		}
		if l.ID1 != id1 || l.LinkType != lt0 || l.ID2 != 200+want || l.Visibility != Visible ||
			l.Time != 1000+10*want || l.Version != want || !bytes.Equal(l.Data, []byte{byte(want)}) {
			t.Errorf("row %d = %+v, want id2 %d (newest first)", i, l, 200+want)
		}
	}
	// The time bound.
	if got, _ := list(1100, 0, 10000); len(got) != 8 || got[0].Time != 1100 {
		t.Errorf("time <= 1100: %d links from %v, want 8 from time 1100", len(got), got)
	}
	if got, _ := list(1099, 0, 10000); len(got) != 7 || got[0].Time != 1090 {
		t.Errorf("time <= 1099: %d links, want 7 from time 1090", len(got))
	}
	if got, _ := list(-1, 0, 10000); len(got) != 0 {
		t.Errorf("time <= -1: %d links, want none", len(got))
	}
	// Offset and limit.
	if got, _ := list(math.MaxInt64, 2, 3); !reflect.DeepEqual(got, all[2:5]) {
		t.Errorf("offset 2 limit 3 = %v, want %v", got, all[2:5])
	}
	if got, _ := list(math.MaxInt64, 17, 5); !reflect.DeepEqual(got, all[17:]) {
		t.Errorf("offset 17 limit 5 = %v, want %v", got, all[17:])
	}
	if got, _ := list(math.MaxInt64, 0, 0); len(got) != 0 {
		t.Errorf("limit 0: %d links", len(got))
	}
	// Paging back from the last time seen (times are distinct).
	var paged []Link
	for maxTime := int64(math.MaxInt64); ; {
		page, last := list(maxTime, 0, 4)
		paged = append(paged, page...)
		if len(page) < 4 {
			break
		}
		maxTime = last - 1
	}
	if !reflect.DeepEqual(paged, all) {
		t.Errorf("pages of 4 = %v, want %v", paged, all)
	}
	// Another id1 or type.
	for _, k := range [][3]int64{{id1, lt0 + 1, 1}, {id1 + 1, lt0, 1}, {id1 + 2, lt0, 0}} {
		if n, _, err := c.GetLinkList(ctx, k[0], k[1], math.MaxInt64, 0, 100); err != nil || int64(n) != k[2] {
			t.Errorf("GetLinkList(%d, %d) = %d (%v), want %d", k[0], k[1], n, err, k[2])
		}
	}
}

func testMultiget(t *testing.T, e *testEngine) {
	st := e.store(t, Options{})
	c := client(t, st)
	ctx := context.Background()
	for i := int64(1); i <= 20; i++ {
		addLink(t, c, Link{ID1: 7, LinkType: lt0, ID2: i, Data: []byte{byte(i)}, Time: i}, Inserted)
	}
	deleteLink(t, c, 7, lt0, 5, false, true)
	got, _ := hooks(t, c)
	many := make([]int64, 200)
	for i := range many {
		many[i] = int64(i) // 0..199: 1..20 exist
	}
	for _, tt := range []struct {
		id1, lt int64
		id2s    []int64
		want    int
	}{
		{7, lt0, []int64{3}, 1},
		{7, lt0, []int64{5}, 1}, // hidden links are found too
		{7, lt0, []int64{1, 2, 99}, 2},
		{7, lt0, []int64{99, 98, 97, 96, 95}, 0},
		{7, lt0, many, 20},
		{7, lt0, many[:129], 20},
		{7, lt0 + 1, []int64{1, 2}, 0},
		{8, lt0, []int64{1}, 0},
		{7, lt0, nil, 0},
	} {
		*got = (*got)[:0]
		n, err := c.MultigetLinks(ctx, tt.id1, tt.lt, tt.id2s)
		if err != nil || n != tt.want || len(*got) != n {
			t.Errorf("MultigetLinks(%d, %d, %d ids) = %d (%v), read %d rows; want %d", tt.id1, tt.lt, len(tt.id2s), n, err, len(*got), tt.want)
		}
		for _, l := range *got {
			wantVis := int8(Visible)
			if l.ID2 == 5 {
				wantVis = Hidden
			}
			if l.ID1 != 7 || l.LinkType != lt0 || l.Visibility != wantVis || l.Time != l.ID2 || !bytes.Equal(l.Data, []byte{byte(l.ID2)}) {
				t.Errorf("MultigetLinks read %+v", l)
			}
		}
	}
}

func testNodes(t *testing.T, e *testEngine) {
	st := e.store(t, Options{})
	c := client(t, st)
	ctx := context.Background()
	var load []Node
	for id := int64(1); id <= 10; id++ {
		load = append(load, Node{ID: id, Type: NodeType, Version: 1, Time: int32(id), Data: []byte(fmt.Sprint("node", id))})
	}
	if err := c.InsertNodes(ctx, load); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishLoad(ctx, 11); err != nil {
		t.Fatal(err)
	}
	_, got := hooks(t, c)
	for want := int64(11); want <= 12; want++ {
		id, err := c.AddNode(ctx, &Node{Type: NodeType, Version: 1, Time: 50, Data: []byte("new")})
		if err != nil || id != want {
			t.Errorf("AddNode = %d (%v), want %d", id, err, want)
		}
	}
	get := func(id int64, want bool) {
		t.Helper()
		*got = (*got)[:0]
		found, err := c.GetNode(ctx, id)
		if err != nil || found != want || len(*got) != map[bool]int{true: 1}[want] {
			t.Fatalf("GetNode(%d) = %v (%v), read %d; want %v", id, found, err, len(*got), want)
		}
	}
	get(5, true)
	if n := (*got)[0]; !reflect.DeepEqual(n, Node{ID: 5, Type: NodeType, Version: 1, Time: 5, Data: []byte("node5")}) {
		t.Errorf("GetNode(5) read %+v", n)
	}
	get(12, true)
	if n := (*got)[0]; n.ID != 12 || string(n.Data) != "new" || n.Time != 50 {
		t.Errorf("GetNode(12) read %+v", n)
	}
	get(999, false)
	update := func(n Node, want bool) {
		t.Helper()
		found, err := c.UpdateNode(ctx, &n)
		if err != nil || found != want {
			t.Errorf("UpdateNode(%d) = %v (%v), want %v", n.ID, found, err, want)
		}
	}
	upd := Node{ID: 5, Type: NodeType, Version: 2, Time: 77, Data: []byte("updated")}
	update(upd, true)
	// Nothing changes: InnoDB counts no changed row, and the reference's connection sees none
	// (MyRocks answers either way); mdcallag's document store wants a modified node.
	if e.name == "myrocks" {
		if _, err := c.UpdateNode(ctx, &upd); err != nil {
			t.Errorf("UpdateNode(%d): %v", upd.ID, err)
		}
	} else {
		update(upd, e.name != "innodb" && !(e.docDB != nil && e.fork))
	}
	update(Node{ID: 999, Type: NodeType, Version: 2}, false)
	get(5, true)
	if n := (*got)[0]; !reflect.DeepEqual(n, upd) {
		t.Errorf("GetNode(5) after the update read %+v, want %+v", n, upd)
	}
	for _, tt := range []struct {
		id   int64
		want bool
	}{{5, true}, {5, false}, {999, false}, {12, true}} {
		if found, err := c.DeleteNode(ctx, tt.id); err != nil || found != tt.want {
			t.Errorf("DeleteNode(%d) = %v (%v), want %v", tt.id, found, err, tt.want)
		}
	}
	get(5, false)
	if r := rows(t, st); r.Nodes != 10 {
		t.Errorf("Rows.Nodes = %d, want 10", r.Nodes)
	}
	// The scans of verification read every column, in id order.
	scanNodes := func(lo, hi int64) (ids []int64, byID map[int64]Node) {
		byID = map[int64]Node{}
		err := st.ScanNodes(ctx, lo, hi, func(n *Node) error {
			cp := *n
			cp.Data = bytes.Clone(n.Data)
			ids, byID[n.ID] = append(ids, n.ID), cp
			return nil
		})
		if err != nil {
			t.Fatalf("ScanNodes(%d, %d): %v", lo, hi, err)
		}
		return ids, byID
	}
	ids, byID := scanNodes(math.MinInt64, math.MaxInt64)
	if want := []int64{1, 2, 3, 4, 6, 7, 8, 9, 10, 11}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ScanNodes read ids %v, want %v", ids, want)
	}
	if n := byID[11]; n.Type != NodeType || n.Version != 1 || n.Time != 50 || string(n.Data) != "new" {
		t.Errorf("ScanNodes read node 11 as %+v", n)
	}
	if n := byID[7]; !reflect.DeepEqual(n, load[6]) {
		t.Errorf("ScanNodes read node 7 as %+v, want %+v", n, load[6])
	}
	if ids, _ := scanNodes(3, 7); !reflect.DeepEqual(ids, []int64{3, 4, 6}) {
		t.Errorf("ScanNodes(3, 7) read ids %v", ids)
	}
}

func testPayloads(t *testing.T, e *testEngine) {
	st := e.store(t, Options{})
	c := client(t, st)
	ctx := context.Background()
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	links := []Link{
		{ID1: 1, LinkType: lt0, ID2: 1, Visibility: Visible, Data: all[:MaxLinkData], Time: 10},
		{ID1: 1, LinkType: lt0, ID2: 2, Visibility: Visible, Data: all[256-MaxLinkData:], Time: 20},
		{ID1: 1, LinkType: lt0, ID2: 3, Visibility: Visible, Data: nil, Time: 30},
		{ID1: 1, LinkType: lt0, ID2: 4, Visibility: Visible, Data: []byte{0}, Time: 40},
	}
	if err := c.InsertLinks(ctx, links[:2]); err != nil {
		t.Fatal(err)
	}
	for _, l := range links[2:] {
		addLink(t, c, l, Inserted)
	}
	got, gotNodes := hooks(t, c)
	if n, err := c.MultigetLinks(ctx, 1, lt0, []int64{1, 2, 3, 4}); err != nil || n != 4 {
		t.Fatalf("MultigetLinks = %d (%v)", n, err)
	}
	if n, _, err := c.GetLinkList(ctx, 1, lt0, math.MaxInt64, 0, 10); err != nil || n != 4 {
		t.Fatalf("GetLinkList = %d (%v)", n, err)
	}
	for _, l := range *got {
		if want := links[l.ID2-1].Data; !bytes.Equal(l.Data, want) {
			t.Errorf("link %d read %d bytes %x, want %d bytes %x", l.ID2, len(l.Data), l.Data, len(want), want)
		}
	}

	// Nodes: every byte value, and batches of large nodes split by size.
	big := bytes.Repeat(all, MaxNodeData/256)
	var nodes []Node
	for id := int64(1); id <= 9; id++ {
		d := bytes.Clone(big)
		d[0] = byte(id)
		nodes = append(nodes, Node{ID: id, Type: NodeType, Version: id, Time: int32(id), Data: d})
	}
	nodes = append(nodes, Node{ID: 10, Type: NodeType, Data: all}, Node{ID: 11, Type: NodeType})
	if err := c.InsertNodes(ctx, nodes); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		*gotNodes = (*gotNodes)[:0]
		if found, err := c.GetNode(ctx, n.ID); err != nil || !found {
			t.Fatalf("GetNode(%d) = %v (%v)", n.ID, found, err)
		}
		if g := (*gotNodes)[0]; g.ID != n.ID || g.Version != n.Version || !bytes.Equal(g.Data, n.Data) {
			t.Errorf("node %d read back with %d bytes (version %d), want %d bytes (version %d)",
				n.ID, len(g.Data), g.Version, len(n.Data), n.Version)
		}
	}
}

// loadData returns the links of id1s [lo, hi) over two link types (0 to 7 links each, the
// fourth hidden), their counttable rows and the visible counts.
func loadData(lo, hi int64) (links []Link, counts []Count, visible map[[2]int64]int64) {
	visible = map[[2]int64]int64{}
	for id1 := lo; id1 < hi; id1++ {
		for ti := int64(0); ti < 2; ti++ {
			lt := lt0 + ti
			n := (id1 + ti) % 8
			v := int64(0)
			for j := int64(0); j < n; j++ {
				vis := int8(Visible)
				if j == 3 {
					vis = Hidden
				} else {
					v++
				}
				links = append(links, Link{ID1: id1, LinkType: lt, ID2: id1 + j, Visibility: vis,
					Data: []byte{byte(j), 0, byte(id1)}, Time: 1_700_000_000_000 + id1*10 + j, Version: j})
			}
			if n > 0 {
				counts = append(counts, Count{ID1: id1, LinkType: lt, Count: v, Time: 1_700_000_000_000})
				visible[[2]int64{id1, lt}] = v
			}
		}
	}
	return links, counts, visible
}

// load inserts loadData(lo, hi) in batches of 1000 links and returns it.
func load(t *testing.T, c Client, lo, hi int64) ([]Link, []Count, map[[2]int64]int64) {
	t.Helper()
	ctx := context.Background()
	links, counts, visible := loadData(lo, hi)
	for i := 0; i < len(links); i += 1000 {
		if err := c.InsertLinks(ctx, links[i:min(i+1000, len(links))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.InsertCounts(ctx, counts); err != nil {
		t.Fatal(err)
	}
	return links, counts, visible
}

func wantCheck(t *testing.T, st Store, lo, hi int64, counts []Count, visible map[[2]int64]int64) {
	t.Helper()
	r := check(t, st, lo, hi)
	stored := map[[2]int64]int64{}
	for _, n := range counts {
		if n.ID1 >= lo && n.ID1 < hi {
			stored[[2]int64{n.ID1, n.LinkType}] = n.Count
		}
	}
	vis := map[[2]int64]int64{}
	for k, v := range visible {
		if k[0] >= lo && k[0] < hi {
			vis[k] = v
		}
	}
	if !reflect.DeepEqual(r.Visible, vis) {
		t.Errorf("Check(%d, %d).Visible has %d entries, want %d", lo, hi, len(r.Visible), len(vis))
	}
	if !reflect.DeepEqual(r.Stored, stored) {
		t.Errorf("Check(%d, %d).Stored has %d entries, want %d", lo, hi, len(r.Stored), len(stored))
	}
}

// wantScans checks that ScanLinks and ScanCounts read exactly links and counts of the id1s
// [lo, hi), every column, in their order.
func wantScans(t *testing.T, st Store, lo, hi int64, links []Link, counts []Count) {
	t.Helper()
	ctx := context.Background()
	var want, got []Link
	for lt := int64(lt0); lt < lt0+2; lt++ {
		for _, l := range links {
			if l.LinkType == lt && l.ID1 >= lo && l.ID1 < hi {
				want = append(want, l)
			}
		}
		err := st.ScanLinks(ctx, lt, lo, hi, func(l *Link) error {
			cp := *l
			cp.Data = bytes.Clone(l.Data)
			got = append(got, cp)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.SliceStable(want, func(i, j int) bool {
		a, b := want[i], want[j]
		return a.LinkType < b.LinkType || a.LinkType == b.LinkType && (a.ID1 < b.ID1 || a.ID1 == b.ID1 && a.ID2 < b.ID2)
	})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ScanLinks read %d links, want %d (or other contents, or out of order)", len(got), len(want))
	}
	var wantCounts, gotCounts []Count
	for _, n := range counts {
		if n.ID1 >= lo && n.ID1 < hi {
			wantCounts = append(wantCounts, n)
		}
	}
	err := st.ScanCounts(ctx, lo, hi, func(n *Count) error { gotCounts = append(gotCounts, *n); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotCounts, wantCounts) {
		t.Errorf("ScanCounts read %v, want %v", gotCounts, wantCounts)
	}
	stop := errors.New("stop")
	if err := st.ScanLinks(ctx, lt0, lo, hi, func(*Link) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("ScanLinks did not return the error of its function: %v", err)
	}
}

func testLoad(t *testing.T, e *testEngine) {
	st := e.store(t, Options{})
	c := client(t, st)
	links, counts, visible := load(t, c, 1000, 1400)
	wantCheck(t, st, 1000, 1400, counts, visible)
	wantCheck(t, st, 1100, 1150, counts, visible)
	wantScans(t, st, 1100, 1150, links, counts)
	if got, want := rows(t, st), (Rows{LinksByPK: int64(len(links)), LinksByIndex: int64(len(links)), Counts: int64(len(counts))}); got != want {
		t.Errorf("Rows = %+v, want %+v", got, want)
	}
	// GetLinkList sees the loaded links but the hidden ones.
	if n, _, err := c.GetLinkList(context.Background(), 1007, lt0, math.MaxInt64, 0, 100); err != nil || n != 6 {
		t.Errorf("GetLinkList(1007) = %d (%v), want 6 of 7", n, err)
	}
	if err := st.CreateIndex(context.Background()); err == nil {
		t.Error("CreateIndex without DeferIndex succeeded")
	}
}

func testDeferredIndex(t *testing.T, e *testEngine) {
	ctx := context.Background()
	st := e.store(t, Options{DeferIndex: true})
	c := client(t, st)
	links, counts, visible := load(t, c, 1000, 1400)
	wantCheck(t, st, 1000, 1400, counts, visible)
	wantCheck(t, st, 1100, 1150, counts, visible)
	if got, want := rows(t, st), (Rows{LinksByPK: int64(len(links)), LinksByIndex: -1, Counts: int64(len(counts))}); got != want {
		t.Errorf("Rows before CreateIndex = %+v, want %+v", got, want)
	}
	if err := st.CreateIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateIndex(ctx); err == nil {
		t.Error("a second CreateIndex succeeded")
	}
	wantCheck(t, st, 1000, 1400, counts, visible)
	wantCheck(t, st, 1100, 1150, counts, visible)
	if got, want := rows(t, st), (Rows{LinksByPK: int64(len(links)), LinksByIndex: int64(len(links)), Counts: int64(len(counts))}); got != want {
		t.Errorf("Rows after CreateIndex = %+v, want %+v", got, want)
	}
	// The index is maintained from now on.
	c2 := client(t, st)
	addLink(t, c2, Link{ID1: 1007, LinkType: lt0, ID2: 1, Time: 1}, Inserted)
	deleteLink(t, c2, 1007, lt0, 1007, false, true)
	addLink(t, c2, Link{ID1: 1007, LinkType: lt0, ID2: 1010, Time: 2_000_000_000_000}, Revealed) // the hidden fourth
	if n, _, err := c2.GetLinkList(ctx, 1007, lt0, math.MaxInt64, 0, 100); err != nil || n != 7 {
		t.Errorf("GetLinkList(1007) = %d (%v), want 7", n, err)
	}
	r := check(t, st, 1007, 1008)
	if r.Visible[[2]int64{1007, lt0}] != 7 || r.Stored[[2]int64{1007, lt0}] != 7 {
		t.Errorf("Check(1007) = %+v, want 7 visible and stored", r)
	}
}

// testHammer runs random AddLink, UpdateLink and DeleteLink on few (id1, link type) from 8 goroutines,
// then checks every count. Eight writers on six rows conflict all the time (InnoDB deadlocks):
// with 100 retries instead of the default 10, an operation that still fails is a retry that
// does not work, not a busy machine.
func testHammer(t *testing.T, e *testEngine, corrected bool) {
	workers, ops := 8, 400
	if e.docDB != nil {
		ops = 100 // FerretDB's writes are slow: 100 a worker still conflict all the time
	}
	st := e.store(t, Options{MaxRetries: 100, Corrected: corrected})
	ctx := context.Background()
	var retries, conflicts atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		c := client(t, st)
		c.SetRetryHook(func() { retries.Add(1) })
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			var l Link
			for i := 0; i < ops; i++ {
				id1, lt, id2 := 1+rng.Int64N(3), lt0+rng.Int64N(2), 1+rng.Int64N(20)
				var err error
				switch r := rng.IntN(10); {
				case r < 6:
					l = Link{ID1: id1, LinkType: lt, ID2: id2, Visibility: Visible, Data: []byte{byte(i)}, Time: int64(i), Version: int64(w)}
					if r < 4 {
						_, err = c.AddLink(ctx, &l)
					} else {
						_, err = c.UpdateLink(ctx, &l)
					}
				default:
					_, err = c.DeleteLink(ctx, id1, lt, id2, rng.IntN(5) == 0)
				}
				if errors.Is(err, runner.ErrRetriesExhausted) {
					conflicts.Add(1)
				} else if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	r := check(t, st, 0, 10)
	for k := range r.Stored {
		if r.Stored[k] != r.Visible[k] {
			t.Errorf("(%d, %d): count %d, %d visible links", k[0], k[1], r.Stored[k], r.Visible[k])
		}
	}
	for k, v := range r.Visible {
		if _, ok := r.Stored[k]; !ok {
			t.Errorf("(%d, %d): %d visible links, no count", k[0], k[1], v)
		}
	}
	if got := rows(t, st); got.LinksByPK != got.LinksByIndex {
		t.Errorf("Rows = %+v: the index and the primary key differ", got)
	}
	t.Logf("%d ops, %d retries, %d conflicts", workers*ops, retries.Load(), conflicts.Load())
	if n := conflicts.Load(); n*100 > int64(workers*ops*3) {
		t.Errorf("%d of %d operations failed with a conflict", n, workers*ops)
	}
}

// testExplain checks that the queries read the intended index: GET_LINKS_LIST and the
// verification's queries always; a link's point reads and writes the primary key in the
// corrected variant, which forces it where the dialect has hints (the reference's plans are
// logged).
func testExplain(t *testing.T, e *testEngine, corrected bool) {
	st := e.store(t, Options{Corrected: corrected}).(*sqlStore)
	c := client(t, st)
	load(t, c, 1000, 1400)
	ctx := context.Background()
	d := st.d
	if d.Name() == "postgres" {
		if _, err := st.db.ExecContext(ctx, "ANALYZE"); err != nil {
			t.Fatal(err)
		}
	}
	scanLinks, scanIndex, scanCounts, scanNodes := st.scanQueries()
	rq := st.rowsQueries()
	mg := &sqlClient{s: st}
	queries := []struct {
		name, index, q string
		args           []any
	}{
		{"get link list", indexName, st.text[stGetLinkList], []any{1007, lt0, 0, int64(math.MaxInt64), 10000, 0}},
		{"rows through the primary key", "pk", rq[0].q, nil},
		{"rows through id1_type", indexName, rq[1].q, nil},
		{"multiget", "pk", mg.multigetText(1007, lt0, []int64{1007, 1008, 1009, 1010}), nil},
		{"visibility for update", "pk", st.text[stGetVisibility], []any{1007, 1008, lt0}},
		{"update link", "pk", st.text[stUpdateLink], []any{1, "'x'", 1, 1, 1007, 1008, lt0}},
		{"hide link", "pk", st.text[stHideLink], []any{1007, 1008, lt0}},
		{"delete link", "pk", st.text[stDeleteLink], []any{1007, 1008, lt0}},
	}
	// Without hints, the counts read each index's order under the dialect's settings.
	if settings := d.IndexOrderSettings(); len(settings) > 0 {
		for _, q := range rq[:2] {
			plan := explainTx(t, st, settings, q.q)
			want := "Index Only Scan using " + indexName + " "
			if q.cols[0] == "link_type" {
				want = "Index Only Scan using " + linkTable + "_pkey "
			}
			if !strings.Contains(plan, want) || strings.Contains(plan, "Sort") {
				t.Errorf("%s: plan does not read its index: %s", q.what, plan)
			}
		}
	}
	// The scans of verification read their index in order, forced where the dialect has hints,
	// else under its settings.
	for _, q := range []struct {
		name, index, q string
		args           []any
	}{
		{"scan links", "pk", scanLinks, []any{lt0, 1000, 1100}},
		{"scan index", indexName, scanIndex, []any{1000, 1100}},
		{"scan counts", "counttable", scanCounts, []any{1000, 1100}},
		{"scan nodes", "nodetable", scanNodes, []any{1000, 1100}},
	} {
		testScanPlan(t, st, q.name, q.index, inline(d, q.q, q.args...))
	}
	for _, q := range queries {
		plan := explain(t, st, inline(d, q.q, q.args...))
		if q.index == "pk" && !corrected {
			t.Logf("%s (the reference's, no hint): %s", q.name, plan) // the planner's choice
			continue
		}
		switch d.Name() {
		case "mysql":
			want := q.index
			if want == "pk" {
				want = "PRIMARY"
			}
			if strings.Contains(plan, "filesort") || strings.Contains(plan, "temporary") || !strings.Contains(plan, "key="+want+" ") {
				t.Errorf("%s: plan does not read %s in order: %s", q.name, want, plan)
			}
			if q.index == indexName && !strings.Contains(plan, "Using index") {
				t.Errorf("%s: not covered by %s: %s", q.name, indexName, plan)
			}
		case "sqlite":
			want := "COVERING INDEX " + indexName
			if q.index == "pk" {
				want = "USING PRIMARY KEY" // of the WITHOUT ROWID table, also with NOT INDEXED
			}
			if !strings.Contains(plan, want) || strings.Contains(plan, "TEMP B-TREE") {
				t.Errorf("%s: plan %q does not read %s in order", q.name, plan, want)
			}
		default:
			// PostgreSQL has no hints; its planner's choice is logged.
			t.Logf("%s: %s", q.name, plan)
			if q.name == "get link list" && (!strings.Contains(plan, indexName) || strings.Contains(plan, "Sort")) {
				t.Errorf("%s: plan does not read %s in order: %s", q.name, indexName, plan)
			}
		}
	}
}

// testScanPlan checks that the scan q reads index (pk: linktable's primary key; counttable,
// nodetable: theirs) in order, with no sort.
func testScanPlan(t *testing.T, st *sqlStore, name, index, q string) {
	t.Helper()
	var settings []string
	if st.d.IndexHint(indexName) == "" {
		settings = append(st.d.IndexOrderSettings(), scanSettings...)
	}
	plan := explainTx(t, st, settings, q)
	var want, sorted string
	switch st.d.Name() {
	case "mysql":
		want, sorted = "key=PRIMARY ", "filesort"
		if index == indexName {
			want = "key=" + indexName + " "
		}
	case "sqlite":
		want = map[string]string{"pk": "USING PRIMARY KEY", indexName: "COVERING INDEX " + indexName,
			"counttable": "USING PRIMARY KEY", "nodetable": "USING INTEGER PRIMARY KEY"}[index]
		sorted = "TEMP B-TREE"
	default:
		want = "using " + map[string]string{"pk": linkTable + "_pkey", indexName: indexName,
			"counttable": countTable + "_pkey", "nodetable": nodeTable + "_pkey"}[index]
		sorted = "Sort "
	}
	if !strings.Contains(plan, want) || strings.Contains(plan, sorted) {
		t.Errorf("%s: plan does not read %s in order (want %q, no %q): %s", name, index, want, sorted, plan)
	}
}

// inline returns q with its bind parameters replaced by the literal values of args (integers).
func inline(d sqldb.Dialect, q string, args ...any) string {
	for i := len(args); i >= 1; i-- {
		if p := d.Placeholder(i); p != "?" {
			q = strings.ReplaceAll(q, p, fmt.Sprint(args[i-1]))
		}
	}
	for _, a := range args {
		q = strings.Replace(q, "?", fmt.Sprint(a), 1)
	}
	return q
}

// explain returns the plan of q, one "col=value " list per row.
func explain(t *testing.T, st *sqlStore, q string) string {
	t.Helper()
	return explainTx(t, st, nil, q)
}

// explainTx returns the plan of q in a transaction that first runs settings.
func explainTx(t *testing.T, st *sqlStore, settings []string, q string) string {
	t.Helper()
	prefix := "EXPLAIN "
	if st.d.Name() == "sqlite" {
		prefix = "EXPLAIN QUERY PLAN "
	}
	tx, err := st.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, s := range settings {
		if _, err := tx.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	rs, err := tx.Query(prefix + q)
	if err != nil {
		t.Fatalf("%s%s: %v", prefix, q, err)
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, c := range cols {
			v := vals[i]
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			fmt.Fprintf(&sb, "%s=%v ", c, v)
		}
		sb.WriteString("; ")
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// testNullOps runs every operation on the null engine.
func testNullOps(t *testing.T, e *testEngine) {
	ctx := context.Background()
	st := e.store(t, Options{DeferIndex: true})
	c := client(t, st)
	links, counts, _ := loadData(1, 100)
	if err := errors.Join(c.InsertLinks(ctx, links), c.InsertCounts(ctx, counts),
		c.InsertNodes(ctx, []Node{{ID: 1, Type: NodeType}}), st.FinishLoad(ctx, 2), st.CreateIndex(ctx)); err != nil {
		t.Fatal(err)
	}
	addLink(t, c, Link{ID1: 1, LinkType: lt0, ID2: 1}, Inserted)
	deleteLink(t, c, 1, lt0, 1, false, false)
	if n, _, err := c.GetLinkList(ctx, 1, lt0, math.MaxInt64, 0, 10); n != 0 || err != nil {
		t.Errorf("GetLinkList = %d (%v)", n, err)
	}
	if n, err := c.MultigetLinks(ctx, 1, lt0, []int64{1, 2}); n != 0 || err != nil {
		t.Errorf("MultigetLinks = %d (%v)", n, err)
	}
	wantCount(t, c, 1, lt0, 0)
	if id, err := c.AddNode(ctx, &Node{Type: NodeType}); id != 2 || err != nil {
		t.Errorf("AddNode = %d (%v), want 2", id, err)
	}
	for name, f := range map[string]func() (bool, error){
		"UpdateNode": func() (bool, error) { return c.UpdateNode(ctx, &Node{ID: 1}) },
		"DeleteNode": func() (bool, error) { return c.DeleteNode(ctx, 1) },
		"GetNode":    func() (bool, error) { return c.GetNode(ctx, 1) },
	} {
		if found, err := f(); found || err != nil {
			t.Errorf("%s = %v (%v)", name, found, err)
		}
	}
	if r := check(t, st, 0, 1000); len(r.Visible)+len(r.Stored) != 0 {
		t.Errorf("Check = %+v", r)
	}
	if r := rows(t, st); r != (Rows{}) {
		t.Errorf("Rows = %+v", r)
	}
}

// TestNullAllocs checks that the operations of the request phase allocate nothing on the null
// engine: the KV store's own cost per operation is key encoding only.
func TestNullAllocs(t *testing.T) {
	eng, err := null.Driver().Open(context.Background(), engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(eng, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := client(t, st)
	ctx := context.Background()
	l := Link{ID1: 1, LinkType: lt0, ID2: 2, Data: make([]byte, 100), Time: 5}
	n := Node{ID: 3, Type: NodeType, Data: make([]byte, 200)}
	id2s := []int64{1, 2, 3}
	for name, op := range map[string]func() error{
		"AddLink":       func() error { _, err := c.AddLink(ctx, &l); return err },
		"UpdateLink":    func() error { _, err := c.UpdateLink(ctx, &l); return err },
		"DeleteLink":    func() error { _, err := c.DeleteLink(ctx, 1, lt0, 2, false); return err },
		"GetLinkList":   func() error { _, _, err := c.GetLinkList(ctx, 1, lt0, math.MaxInt64, 0, 10000); return err },
		"MultigetLinks": func() error { _, err := c.MultigetLinks(ctx, 1, lt0, id2s); return err },
		"CountLinks":    func() error { _, err := c.CountLinks(ctx, 1, lt0); return err },
		"AddNode":       func() error { _, err := c.AddNode(ctx, &n); return err },
		"UpdateNode":    func() error { _, err := c.UpdateNode(ctx, &n); return err },
		"DeleteNode":    func() error { _, err := c.DeleteNode(ctx, 3); return err },
		"GetNode":       func() error { _, err := c.GetNode(ctx, 3); return err },
	} {
		if err := op(); err != nil { // buffers grow once
			t.Fatalf("%s: %v", name, err)
		}
		if a := testing.AllocsPerRun(100, func() { op() }); a != 0 {
			t.Errorf("%s allocates %.1f times per call", name, a)
		}
	}
}

// fakeEngine is an engine of no family.
type fakeEngine struct{}

func (fakeEngine) Family() engine.Family       { return "fake" }
func (fakeEngine) Version() string             { return "0" }
func (fakeEngine) Settings() map[string]string { return nil }
func (fakeEngine) Close() error                { return nil }

func TestOpen(t *testing.T) {
	if _, err := Open(fakeEngine{}, Options{}); err == nil || !strings.Contains(err.Error(), "is not an SQL") {
		t.Errorf("Open(fake engine) = %v", err)
	}
	if _, err := Open(nil, Options{}); err == nil {
		t.Error("Open(nil) succeeded")
	}
	e := engineCases()[1] // pebble
	kvEng := openEngine(t, e, t.TempDir())
	if _, err := Open(kvEng, Options{MaxRetries: -1}); err == nil {
		t.Error("Open with MaxRetries -1 succeeded")
	}
	st, err := Open(kvEng, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := st.(*kvStore); s.opt.MaxRetries != DefaultMaxRetries {
		t.Errorf("MaxRetries = %d, want the default %d", s.opt.MaxRetries, DefaultMaxRetries)
	}
}

// TestSQLiteConflict holds SQLite's write lock from another connection with no busy timeout:
// AddLink retries MaxRetries times, pausing on the store's clock and calling the hook, then
// fails with SQLite's busy error and runner.ErrRetriesExhausted; when the step's context ends
// during its retries, it stops at once.
func TestSQLiteConflict(t *testing.T) {
	c := engineCases()[0]
	c.small = map[string]string{"busy_timeout_ms": "0"}
	e := c.open(t)
	clock := runner.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	st := e.store(t, Options{MaxRetries: 3, Clock: clock})
	cl := client(t, st)
	ctx := context.Background()
	conn, err := e.shared.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	var retries int
	cl.SetRetryHook(func() { retries++ })
	start := clock.Now()
	_, err = cl.AddLink(ctx, &Link{ID1: 1, LinkType: lt0, ID2: 2})
	if !errors.Is(err, runner.ErrRetriesExhausted) || !sqldb.DialectOf(sqldb.SQLite).Retryable(err) || retries != 3 ||
		!strings.HasPrefix(err.Error(), "add link: gave up after 3 retries") {
		t.Errorf("AddLink under a held write lock: %v after %d retries", err, retries)
	}
	// 20, 40 and 80 ms, each within 25%.
	if paused := clock.Now().Sub(start); paused < 105*time.Millisecond || paused > 175*time.Millisecond {
		t.Errorf("the retries paused %v on the store's clock, want 140 ms within 25%%", paused)
	}

	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	retries = 0
	cl.SetRetryHook(func() {
		if retries++; retries == 2 {
			cancel() // the step ends during the second retry
		}
	})
	cl.SetRetryStop(stop)
	_, err = cl.AddLink(ctx, &Link{ID1: 1, LinkType: lt0, ID2: 2})
	if !errors.Is(err, context.Canceled) || errors.Is(err, runner.ErrRetriesExhausted) || retries != 2 {
		t.Errorf("AddLink under a held write lock, the step ending: %v after %d retries", err, retries)
	}
	cl.SetRetryStop(ctx)

	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	addLink(t, cl, Link{ID1: 1, LinkType: lt0, ID2: 2}, Inserted)
	wantCount(t, cl, 1, lt0, 1)
}
