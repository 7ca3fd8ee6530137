package perf

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// header is a sample's first line in perf script's default output, e.g.
// "mysqld  1234/1240 [001] 879.457543:    1001001 cpu-clock: ": the command, pid/ (with
// -F +pid) and tid, the CPU (for system-wide recordings), the time, the period (in sampling
// by frequency), the event, and the frame when there is no callchain.
var header = regexp.MustCompile(`^(.+?)\s+(?:(\d+)/)?(\d+)\s+(?:\[(\d+)\]\s+)?(\d+\.\d+):\s+(?:(\d+)\s+)?(\S+?):\s*(.*)$`)

// offset is a symbol's offset suffix, "+0x53".
var offset = regexp.MustCompile(`\+0x[0-9a-fA-F]+$`)

// ParseScript converts perf script's default text output of a recording with callchains
// (perf record -g) into a pprof profile: sample types samples/count and cpu/nanoseconds (the
// period of cpu-clock and task-clock; another event's period is its count), one Location per
// frame with a Function named by perf's symbol ("[unknown]" frames are named by their DSO,
// "[libc.so.6]", or by their address when perf knows neither), a Mapping per DSO, and labels
// comm, pid and tid. Period is the mean period and DurationNanos the span of the samples'
// times.
func ParseScript(r io.Reader) (*profile.Profile, error) {
	b := newBuilder()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var cur *profile.Sample
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			cur = nil
		case line[0] == '\t' || line[0] == ' ':
			if cur == nil {
				return nil, fmt.Errorf("line %d: a frame outside a sample: %q", n, line)
			}
			cur.Location = append(cur.Location, b.location(strings.TrimSpace(line)))
		default:
			s, frame, err := b.sample(line)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			if cur = s; frame != "" {
				cur.Location = append(cur.Location, b.location(frame))
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read perf script's output: %w", err)
	}
	return b.finish()
}

// builder makes a profile, sharing its functions, locations and mappings.
type builder struct {
	p          *profile.Profile
	funcs      map[string]*profile.Function
	locs       map[string]*profile.Location
	maps       map[string]*profile.Mapping
	event      string
	first, end float64
}

func newBuilder() *builder {
	return &builder{
		p:     &profile.Profile{},
		funcs: map[string]*profile.Function{},
		locs:  map[string]*profile.Location{},
		maps:  map[string]*profile.Mapping{},
	}
}

// sample adds the sample a header line starts; frame is the header's frame, if it has one.
func (b *builder) sample(line string) (*profile.Sample, string, error) {
	m := header.FindStringSubmatch(line)
	if m == nil {
		return nil, "", fmt.Errorf("not a sample's first line: %q", line)
	}
	comm, pid, tid, at, period, event, frame := m[1], m[2], m[3], m[5], m[6], m[7], m[8]
	s := &profile.Sample{Label: map[string][]string{"comm": {comm}}, NumLabel: map[string][]int64{}}
	for k, v := range map[string]string{"pid": pid, "tid": tid} {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			s.NumLabel[k] = []int64{n}
		}
	}
	p, _ := strconv.ParseInt(period, 10, 64)
	s.Value = []int64{1, p}
	if t, err := strconv.ParseFloat(at, 64); err == nil {
		if len(b.p.Sample) == 0 || t < b.first {
			b.first = t
		}
		b.end = max(b.end, t)
	}
	if b.event == "" {
		b.event = event
	}
	b.p.Sample = append(b.p.Sample, s)
	return s, frame, nil
}

// location is a frame's Location: "ffffffff8164ad2c kfree+0x3c ([kernel.kallsyms])".
func (b *builder) location(frame string) *profile.Location {
	if l, ok := b.locs[frame]; ok {
		return l
	}
	addrText, rest, _ := strings.Cut(frame, " ")
	addr, _ := strconv.ParseUint(addrText, 16, 64)
	sym, dso := strings.TrimSpace(rest), ""
	if i := strings.LastIndex(sym, " ("); i >= 0 && strings.HasSuffix(sym, ")") {
		sym, dso = strings.TrimSpace(sym[:i]), sym[i+2:len(sym)-1]
	}
	sym = offset.ReplaceAllString(sym, "")
	if sym == "" || sym == "[unknown]" {
		sym = "0x" + addrText
		if dso != "" && dso != "[unknown]" {
			sym = "[" + strings.Trim(filepath.Base(dso), "[]") + "]"
		}
	}
	l := &profile.Location{
		ID:      uint64(len(b.p.Location) + 1),
		Address: addr,
		Mapping: b.mapping(dso),
		Line:    []profile.Line{{Function: b.function(sym, dso)}},
	}
	b.locs[frame] = l
	b.p.Location = append(b.p.Location, l)
	return l
}

func (b *builder) function(name, dso string) *profile.Function {
	key := name + "\x00" + dso
	if f, ok := b.funcs[key]; ok {
		return f
	}
	f := &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: name, SystemName: name}
	if dso != "[unknown]" {
		f.Filename = dso
	}
	b.funcs[key] = f
	b.p.Function = append(b.p.Function, f)
	return f
}

// mapping is a DSO's Mapping; nil when perf knows none. Perf script gives no address range.
func (b *builder) mapping(dso string) *profile.Mapping {
	if dso == "" || dso == "[unknown]" {
		return nil
	}
	if m, ok := b.maps[dso]; ok {
		return m
	}
	m := &profile.Mapping{ID: uint64(len(b.p.Mapping) + 1), File: dso, HasFunctions: true}
	b.maps[dso] = m
	b.p.Mapping = append(b.p.Mapping, m)
	return m
}

// finish sets the profile's types, period and duration and checks it.
func (b *builder) finish() (*profile.Profile, error) {
	p := b.p
	value := &profile.ValueType{Type: b.event, Unit: "count"}
	if b.event == "" || b.event == "cpu-clock" || b.event == "task-clock" {
		value = &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}
	}
	p.SampleType = []*profile.ValueType{{Type: "samples", Unit: "count"}, value}
	p.PeriodType = value
	var total int64
	for _, s := range p.Sample {
		total += s.Value[1]
	}
	if n := int64(len(p.Sample)); n > 0 {
		p.Period = total / n
		p.DurationNanos = int64((b.end - b.first) * 1e9)
	}
	if err := p.CheckValid(); err != nil {
		return nil, fmt.Errorf("the profile made of perf script's output: %w", err)
	}
	return p, nil
}
