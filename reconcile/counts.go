package reconcile

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// Counts are the number of changes of each kind (Of), and of memberships.
type Counts struct {
	// byKind counts the changes by their kind's row in kindTable.
	byKind            []int
	AddMemberships    int
	RemoveMemberships int
	Withheld          int
	Unmatched         int
	Excluded          int
	OutOfScope        int
}

// Counts counts the plan's changes and its pending invites' groups by
// kind; a change of a kind the table does not know is not counted (Check
// reports it).
func (p *Plan) Counts() Counts {
	c := Counts{Withheld: len(p.Withheld), Unmatched: p.Unmatched.Len(), Excluded: p.Excluded, OutOfScope: p.OutOfScope}
	for i := range p.Changes {
		c.add(p.Changes[i].Kind, 1)
		c.AddMemberships += len(p.Changes[i].Add)
		c.RemoveMemberships += len(p.Changes[i].Remove)
	}
	for i := range p.InviteGroups {
		c.add(p.InviteGroups[i].Kind, 1)
	}
	return c
}

// Of is the count of changes of kind k (0 for a kind the table does not
// know).
func (c Counts) Of(k Kind) int {
	if r, ok := kinds[k]; ok && r.rank < len(c.byKind) {
		return c.byKind[r.rank]
	}
	return 0
}

// add adds n to the count of kind k; a kind the table does not know is
// not counted.
func (c *Counts) add(k Kind, n int) {
	r, ok := kinds[k]
	if !ok {
		return
	}
	if len(c.byKind) < len(kindTable) {
		c.byKind = append(c.byKind, make([]int, len(kindTable)-len(c.byKind))...)
	}
	c.byKind[r.rank] += n
}

// jsonKey is the key of kind k's count in the JSON counts: its name in
// camel case ("create-group": "createGroup").
func (k Kind) jsonKey() string {
	words := strings.Split(string(k), "-")
	for i := 1; i < len(words); i++ {
		if words[i] != "" {
			words[i] = strings.ToUpper(words[i][:1]) + words[i][1:]
		}
	}
	return strings.Join(words, "")
}

// countField is one number of the JSON counts.
type countField struct {
	key       string
	n         int
	omitEmpty bool
}

// fields are the JSON counts in their order: the kinds of changes, the
// memberships, the kinds apart (each in the order of its count's json
// place), then the rest.
func (c *Counts) fields() []countField {
	rows := slices.SortedStableFunc(slices.Values(kindTable), func(a, b kindRow) int { return cmp.Compare(a.count.json, b.count.json) })
	var changes, apart []countField
	for _, r := range rows {
		f := countField{key: r.kind.jsonKey(), n: c.Of(r.kind)}
		if r.apart {
			apart = append(apart, f)
		} else {
			changes = append(changes, f)
		}
	}
	return slices.Concat(changes,
		[]countField{{key: "addMemberships", n: c.AddMemberships}, {key: "removeMemberships", n: c.RemoveMemberships}},
		apart,
		[]countField{{key: "withheld", n: c.Withheld}, {key: "unmatched", n: c.Unmatched}, {key: "excluded", n: c.Excluded},
			{key: "outOfScope", n: c.OutOfScope, omitEmpty: true}})
}

// MarshalJSON writes the counts as one object: a key for every kind of
// the table (jsonKey), then addMemberships, removeMemberships, withheld,
// unmatched, excluded and outOfScope (left out when 0).
func (c Counts) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for _, f := range c.fields() {
		if f.omitEmpty && f.n == 0 {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		key, _ := json.Marshal(f.key)
		b.Write(key)
		b.WriteByte(':')
		b.Write(strconv.AppendInt(nil, int64(f.n), 10))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads counts MarshalJSON wrote; a key of no kind the
// table knows is left out.
func (c *Counts) UnmarshalJSON(data []byte) error {
	var m map[string]int
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	*c = Counts{AddMemberships: m["addMemberships"], RemoveMemberships: m["removeMemberships"], Withheld: m["withheld"],
		Unmatched: m["unmatched"], Excluded: m["excluded"], OutOfScope: m["outOfScope"]}
	for _, k := range Kinds() {
		c.add(k, m[k.jsonKey()])
	}
	return nil
}
