package reconcile

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
)

// Every kind has one complete row, and no two rows share a kind, words
// or a count's place.
func TestKindTableIsComplete(t *testing.T) {
	t.Parallel()
	if len(kinds) != len(kindTable) {
		t.Fatalf("kindTable has %d rows for %d kinds: a kind is listed twice", len(kindTable), len(kinds))
	}
	words, lines, places := map[string]Kind{}, map[int]Kind{}, map[int]Kind{}
	for i, r := range kindTable {
		if r.kind == "" || r.sign == "" || r.count.words == "" || r.count.line == 0 || r.count.json == 0 || r.count.line == MembershipsLine ||
			r.send == 0 || kinds[r.kind].rank != i {
			t.Errorf("row %d (%q) is incomplete: %+v", i, r.kind, r)
			continue
		}
		for _, seen := range []struct {
			m map[int]Kind
			v int
		}{{lines, r.count.line}, {places, r.count.json}} {
			if other, dup := seen.m[seen.v]; dup {
				t.Errorf("%q and %q share the count's place %d", r.kind, other, seen.v)
			}
			seen.m[seen.v] = r.kind
		}
		if other, dup := words[r.count.words]; dup {
			t.Errorf("%q and %q are counted with the same words", r.kind, other)
		}
		words[r.count.words] = r.kind
	}
}

// The table's rows in a plan: the order, destructiveness and count of
// every kind (the views test the lines: internal/util/oneline).
func TestKindRowsInAPlan(t *testing.T) {
	t.Parallel()
	u := User{Type: EnterpriseID, Email: "a@x.com"}
	p := &Plan{}
	for _, r := range slices.Backward(kindTable) {
		k := r.kind
		c := Change{Kind: k, User: u, Group: "G"}
		if k == KindInviteGroups {
			p.InviteGroups = append(p.InviteGroups, c)
			continue
		}
		p.Changes = append(p.Changes, c)
	}
	c := p.Counts()
	for _, k := range Kinds() {
		if c.Of(k) != 1 {
			t.Errorf("%d changes of kind %s counted: want one of each kind", c.Of(k), k)
		}
	}
	var destructive []Kind
	for _, ch := range p.Changes {
		if ch.Destructive() {
			destructive = append(destructive, ch.Kind)
		}
	}
	if !slices.Equal(destructive, []Kind{KindRevokeInvite, KindDelete, KindRemove}) {
		t.Errorf("destructive kinds %v; want revoke-invite, delete, remove", destructive)
	}
}

// A change of a kind the table does not know is an error wherever a plan
// is shown or applied, never a default action: nothing is sent, and the
// safety rules count it as destructive.
func TestUnknownKindIsAnError(t *testing.T) {
	t.Parallel()
	unknown := Change{Kind: "rename", User: User{Type: EnterpriseID, Email: "a@x.com"}, Remove: nil}
	p := manyCreates(3)
	p.Changes = append(p.Changes, unknown)
	if err := p.Check(); !errors.Is(err, ErrUnknownKind) {
		t.Fatalf("Check: %v; want ErrUnknownKind", err)
	}
	for _, o := range []ApplyOptions{{}, {TestOnly: true}, {Requests: p.Batches(DefaultLimits())}} {
		s := &fakeSender{}
		res, err := Apply(context.Background(), p, s, o)
		if !errors.Is(err, ErrUnknownKind) || len(s.requests) != 0 || len(s.invites) != 0 || res.Requests != 0 {
			t.Errorf("Apply %+v: %v, result %+v, sent %d requests and %v; want ErrUnknownKind and nothing sent", o, err, res, len(s.requests), s.invites)
		}
	}
	if !unknown.Destructive() {
		t.Error("a change of an unknown kind is not destructive: the safety rules would let it through")
	}
	if c := p.Counts(); c.Of(KindCreate) != 3 || c.Of(KindRevokeInvite) != 1 {
		t.Errorf("counts %+v: want the known changes counted", c)
	}
	misplaced := &Plan{Changes: []Change{{Kind: KindInviteGroups, User: unknown.User}}}
	if err := misplaced.Check(); err == nil {
		t.Error("Check accepted invite-groups among the changes")
	}
}

// FuzzUnknownKinds builds plans of arbitrary kinds (a plan read from a
// file may hold anything): nothing panics, a plan holding a kind the table
// does not know is refused before anything is sent, and any other plan is
// counted change by change.
func FuzzUnknownKinds(f *testing.F) {
	f.Add("create", "remove", "G", true)
	f.Add("suspend", "update", "", false)
	f.Add("", "invite-groups", "_org_admin", true)
	f.Fuzz(func(t *testing.T, k1, k2, group string, remove bool) {
		u := User{Type: EnterpriseID, Email: "a@x.com"}
		p := &Plan{UserGroups: []string{group}}
		for i, k := range []string{k1, k2} {
			c := Change{Kind: Kind(k), User: u, Group: group, Add: []string{group}}
			if remove {
				c.Remove = []string{group}
			}
			c.User.Email = fmt.Sprintf("u%d@x.com", i)
			p.Changes = append(p.Changes, c)
		}
		_, known1 := kinds[Kind(k1)]
		_, known2 := kinds[Kind(k2)]
		valid := known1 && known2 && k1 != string(KindInviteGroups) && k2 != string(KindInviteGroups)
		if err := p.Check(); (err == nil) != valid {
			t.Fatalf("Check(%q, %q) = %v; want valid %v", k1, k2, err, valid)
		}
		c, n := p.Counts(), 0
		for _, k := range Kinds() {
			n += c.Of(k)
		}
		if valid && n != 2 {
			t.Errorf("counts %+v: want the 2 changes counted", c)
		}
		p.Batches(DefaultLimits())
		s := &fakeSender{}
		_, err := Apply(context.Background(), p, s, ApplyOptions{})
		if !valid && (err == nil || len(s.requests)+len(s.invites) > 0) {
			t.Errorf("Apply(%q, %q): %v, sent %d requests and %v; want an error and nothing sent", k1, k2, err, len(s.requests), s.invites)
		}
	})
}
