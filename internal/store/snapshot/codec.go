package snapshot

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"strings"
	"time"

	"github.com/orgsync/orgsync/reconcile"
)

// The file's layout: the magic line, the format version (a uvarint), the
// body, and the CRC-32C of everything before it (4 bytes, little endian).
// The body of format 1 is, every string a uvarint length and its bytes:
//
//	fingerprint, org, fullRead and saved (varint Unix nanoseconds), doubt,
//	flags (byGroup 1, invitesKnown 2), readGroups (count, names),
//	groups (count, names: the group table), users (count, memberships in
//	all, then each user), invites (count, then email, lastSent as varint
//	Unix milliseconds and expired, a byte)
//
// and each user is its identity type (a byte), flags (1: the username is
// the email), email, username (unless flag 1), domain, first name, last
// name, country, and its groups as indexes into the group table.
const (
	magic = "orgsync snapshot\n"
	// FormatVersion is the version of the format this package writes and
	// reads; a file of any other version is not read (ErrFormat).
	FormatVersion = 1
)

// Errors of Decode and Store.Load.
var (
	// ErrNotSnapshot: the file does not start as a snapshot does.
	ErrNotSnapshot = errors.New("not a snapshot file")
	// ErrFormat: the file is a snapshot of another format version.
	ErrFormat = errors.New("another format version")
	// ErrDamaged: the file's content does not match its checksum, or does
	// not decode.
	ErrDamaged = errors.New("damaged")
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// identity types by their code in the file; 0 is reconcile.UnknownID.
var typeCodes = []reconcile.IdentityType{reconcile.UnknownID, reconcile.VendorID, reconcile.EnterpriseID, reconcile.FederatedID}

func typeCode(t reconcile.IdentityType) byte {
	for i, c := range typeCodes {
		if c == t {
			return byte(i)
		}
	}
	return 0
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

const (
	flagByGroup      = 1
	flagInvitesKnown = 2
	userNameIsEmail  = 1
)

// Encode writes s to w in the snapshot format.
func Encode(w io.Writer, s *Snapshot) error {
	crc := crc32.New(castagnoli)
	e := &encoder{w: io.MultiWriter(w, crc), buf: make([]byte, 0, 1<<17)}
	e.raw([]byte(magic))
	e.uint(FormatVersion)
	e.str(s.Fingerprint)
	e.str(s.Org)
	e.time(s.FullRead)
	e.time(s.Saved)
	e.str(s.Doubt)
	var flags byte
	if s.ByGroup {
		flags |= flagByGroup
	}
	if s.InvitesKnown {
		flags |= flagInvitesKnown
	}
	e.buf = append(e.buf, flags)
	e.strs(s.ReadGroups)
	table := newGroupTable(s)
	e.strs(table.names)
	e.users(s.Users, table)
	e.uint(uint64(len(s.Invites)))
	for _, in := range s.Invites {
		e.str(in.Email)
		e.buf = binary.AppendVarint(e.buf, in.LastSent.UnixMilli())
		e.buf = append(e.buf, boolByte(in.Expired))
	}
	e.flush()
	if e.err != nil {
		return e.err
	}
	_, err := w.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
	return err
}

// groupTable numbers the group names of a snapshot: its known groups and
// every group of its users, each exact name once.
type groupTable struct {
	names []string
	index map[string]uint64
}

func newGroupTable(s *Snapshot) *groupTable {
	t := &groupTable{index: map[string]uint64{}}
	for _, g := range s.Groups {
		t.add(g)
	}
	for i := range s.Users {
		for _, g := range s.Users[i].Groups {
			t.add(g)
		}
	}
	return t
}

func (t *groupTable) add(g string) uint64 {
	if i, ok := t.index[g]; ok {
		return i
	}
	i := uint64(len(t.names))
	t.names = append(t.names, g)
	t.index[g] = i
	return i
}

// encoder appends to a buffer it writes out in large pieces.
type encoder struct {
	w   io.Writer
	buf []byte
	err error
}

func (e *encoder) raw(b []byte)  { e.buf = append(e.buf, b...) }
func (e *encoder) uint(n uint64) { e.buf = binary.AppendUvarint(e.buf, n) }
func (e *encoder) time(t time.Time) {
	var n int64
	if !t.IsZero() {
		n = t.UnixNano()
	}
	e.buf = binary.AppendVarint(e.buf, n)
}

func (e *encoder) str(s string) {
	e.uint(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

func (e *encoder) strs(list []string) {
	e.uint(uint64(len(list)))
	for _, s := range list {
		e.str(s)
	}
}

func (e *encoder) users(users []reconcile.User, table *groupTable) {
	memberships := 0
	for i := range users {
		memberships += len(users[i].Groups)
	}
	e.uint(uint64(len(users)))
	e.uint(uint64(memberships))
	for i := range users {
		u := &users[i]
		var flags byte
		if u.Username == u.Email {
			flags |= userNameIsEmail
		}
		e.buf = append(e.buf, typeCode(u.Type), flags)
		e.str(u.Email)
		if flags&userNameIsEmail == 0 {
			e.str(u.Username)
		}
		e.str(u.Domain)
		e.str(u.FirstName)
		e.str(u.LastName)
		e.str(u.Country)
		e.uint(uint64(len(u.Groups)))
		for _, g := range u.Groups {
			e.uint(table.index[g])
		}
		if len(e.buf) > 1<<16 {
			e.flush()
		}
	}
}

func (e *encoder) flush() {
	if e.err == nil {
		_, e.err = e.w.Write(e.buf)
	}
	e.buf = e.buf[:0]
}

// Decode reads a snapshot from r. The strings of the snapshot share the
// memory of one copy of the file's content, made as it is read (size, when
// known, sizes it at once).
func Decode(r io.Reader, size int64) (*Snapshot, error) {
	var b strings.Builder
	if size > 0 {
		b.Grow(int(size))
	}
	sum := &checksum{crc: crc32.New(castagnoli)}
	if _, err := io.Copy(io.MultiWriter(&b, sum), r); err != nil {
		return nil, err
	}
	return decode(b.String(), sum)
}

// checksum is the CRC-32C of what is written to it but its last 4 bytes
// (the file's trailer), which it keeps.
type checksum struct {
	crc  hash.Hash32
	tail []byte
}

func (c *checksum) Write(p []byte) (int, error) {
	if len(p) >= 4 {
		c.crc.Write(c.tail)
		c.crc.Write(p[:len(p)-4])
		c.tail = append(c.tail[:0], p[len(p)-4:]...)
		return len(p), nil
	}
	c.tail = append(c.tail, p...)
	if over := len(c.tail) - 4; over > 0 {
		c.crc.Write(c.tail[:over])
		c.tail = append(c.tail[:0], c.tail[over:]...)
	}
	return len(p), nil
}

// matches reports whether the content's CRC is the trailer's.
func (c *checksum) matches() bool {
	return len(c.tail) == 4 && c.crc.Sum32() == binary.LittleEndian.Uint32(c.tail)
}

// decode reads a snapshot from the whole content of a file, sum its
// checksum.
func decode(data string, sum *checksum) (*Snapshot, error) {
	if !strings.HasPrefix(data, magic) {
		return nil, ErrNotSnapshot
	}
	d := &decoder{data: data, pos: len(magic)}
	v := d.uint()
	switch {
	case d.err != nil:
		return nil, fmt.Errorf("%w: no format version", ErrDamaged)
	case v != FormatVersion:
		return nil, fmt.Errorf("%w: format %d, this version of orgsync reads format %d", ErrFormat, v, FormatVersion)
	case !sum.matches() || len(data) < d.pos+4:
		return nil, fmt.Errorf("%w: its checksum does not match its content", ErrDamaged)
	}
	d.data = data[:len(data)-4]
	s := d.snapshot()
	if d.err == nil && d.pos != len(d.data) {
		d.fail("bytes after the end")
	}
	if d.err != nil {
		return nil, d.err
	}
	return s, nil
}

// decoder reads the body of a snapshot; the first problem stops it.
type decoder struct {
	data string
	pos  int
	err  error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s at byte %d", ErrDamaged, what, d.pos)
	}
}

func (d *decoder) byte() byte {
	if d.err != nil || d.pos >= len(d.data) {
		d.fail("cut short")
		return 0
	}
	d.pos++
	return d.data[d.pos-1]
}

func (d *decoder) uint() uint64 {
	var n uint64
	for shift := 0; shift < 64; shift += 7 {
		b := d.byte()
		if d.err != nil {
			return 0
		}
		n |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return n
		}
	}
	d.fail("a number too long")
	return 0
}

func (d *decoder) int() int64 {
	u := d.uint()
	return int64(u>>1) ^ -int64(u&1)
}

// count reads a number of items, each at least one byte: never more than
// the bytes left, so that a damaged count cannot ask for a huge list.
func (d *decoder) count() int {
	n := d.uint()
	if n > uint64(len(d.data)-d.pos) {
		d.fail("a count larger than the file")
		return 0
	}
	return int(n)
}

func (d *decoder) str() string {
	n := d.count()
	if d.err != nil {
		return ""
	}
	s := d.data[d.pos : d.pos+n]
	d.pos += n
	return s
}

func (d *decoder) strs() []string {
	n := d.count()
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.str()
	}
	return out
}

func (d *decoder) time() time.Time {
	n := d.int()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func (d *decoder) snapshot() *Snapshot {
	s := &Snapshot{Fingerprint: d.str(), Org: d.str(), FullRead: d.time(), Saved: d.time(), Doubt: d.str()}
	flags := d.byte()
	s.ByGroup, s.InvitesKnown = flags&flagByGroup != 0, flags&flagInvitesKnown != 0
	s.ReadGroups = d.strs()
	s.Groups = d.strs()
	s.Users = d.users(s.Groups)
	s.Invites = make([]reconcile.Invite, d.count())
	for i := range s.Invites {
		s.Invites[i] = reconcile.Invite{Email: d.str(), LastSent: time.UnixMilli(d.int()).UTC(), Expired: d.byte() == 1}
	}
	return s
}

// users reads the users; their groups share one list.
func (d *decoder) users(table []string) []reconcile.User {
	n := d.count()
	memberships := d.count()
	if d.err != nil {
		return nil
	}
	users := make([]reconcile.User, n)
	groups := make([]string, memberships)
	for i := range users {
		u := &users[i]
		code, flags := d.byte(), d.byte()
		if int(code) >= len(typeCodes) {
			d.fail("an unknown identity type")
		}
		u.Type, u.Email = typeCodes[code%byte(len(typeCodes))], d.str()
		u.Username = u.Email
		if flags&userNameIsEmail == 0 {
			u.Username = d.str()
		}
		u.Domain, u.FirstName, u.LastName, u.Country = d.str(), d.str(), d.str(), d.str()
		k := d.count()
		if k > len(groups) {
			d.fail("more memberships than counted")
		}
		if d.err != nil {
			return nil
		}
		u.Groups, groups = groups[:k:k], groups[k:]
		for j := range u.Groups {
			g := d.uint()
			if g >= uint64(len(table)) {
				d.fail("a group outside the group table")
				return nil
			}
			u.Groups[j] = table[g]
		}
		if k == 0 {
			u.Groups = nil
		}
	}
	return users
}
