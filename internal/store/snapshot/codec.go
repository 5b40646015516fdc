package snapshot

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
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
	e.users(&s.Users, table)
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
	for _, g := range s.Users.GroupNames() {
		t.add(g)
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

func (e *encoder) users(users *reconcile.Users, table *groupTable) {
	memberships := 0
	for _, u := range users.All() {
		memberships += len(u.Groups)
	}
	e.uint(uint64(users.Len()))
	e.uint(uint64(memberships))
	for _, u := range users.All() {
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

// Decode reads a snapshot from r as it streams in: the users go straight
// into their compact form, and no copy of the file is held. size, when
// known (> 0), is the file's size, which bounds every count read. A file
// that is damaged anywhere is refused (ErrDamaged) once it is read to its
// end, whatever part of it was decoded.
func Decode(r io.Reader, size int64) (*Snapshot, error) {
	sum := &checksum{crc: crc32.New(castagnoli)}
	d := &decoder{r: io.TeeReader(r, sum), buf: make([]byte, 1<<16), size: size, names: map[string]string{}}
	if size <= 0 {
		d.size = math.MaxInt64
	}
	if !d.fill(len(magic)) || string(d.buf[:len(magic)]) != magic {
		if d.err != nil && !errors.Is(d.err, ErrDamaged) {
			return nil, d.err
		}
		return nil, ErrNotSnapshot
	}
	d.pos = len(magic)
	v := d.uint()
	switch {
	case d.err != nil:
		return nil, d.failure(sum)
	case v != FormatVersion:
		return nil, fmt.Errorf("%w: format %d, this version of orgsync reads format %d", ErrFormat, v, FormatVersion)
	}
	s := d.snapshot()
	d.trailer()
	if d.err != nil {
		return nil, d.failure(sum)
	}
	if !sum.matches() {
		return nil, fmt.Errorf("%w: its checksum does not match its content", ErrDamaged)
	}
	return s, nil
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

// decoder reads the body of a snapshot from a stream, through a window
// of it (buf[pos:end], at offset off of the file); the first problem
// stops it.
type decoder struct {
	r        io.Reader
	buf      []byte
	pos, end int
	off      int64 // the file's offset of buf[0]
	eof      bool
	size     int64 // the file's size (math.MaxInt64 when unknown)
	err      error
	names    map[string]string // the domains and countries read, each held once
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s at byte %d", ErrDamaged, what, d.off+int64(d.pos))
	}
}

// fill makes n bytes readable at pos, reading more of the stream; false
// (with the error set) when the stream ends before.
func (d *decoder) fill(n int) bool {
	if d.err != nil {
		return false
	}
	if d.end-d.pos >= n {
		return true
	}
	d.off += int64(d.pos)
	d.end = copy(d.buf, d.buf[d.pos:d.end])
	d.pos = 0
	if n > len(d.buf) {
		d.buf = append(d.buf[:d.end], make([]byte, n-d.end)...)
	}
	for d.end < n && !d.eof {
		m, err := d.r.Read(d.buf[d.end:])
		d.end += m
		if errors.Is(err, io.EOF) {
			d.eof = true
		} else if err != nil {
			d.err = err
			return false
		}
	}
	if d.end < n {
		d.fail("cut short")
		return false
	}
	return true
}

// failure is the error of a decoding that stopped: a read error as it
// is; a file damaged anywhere, its checksum (the rest of the file is read
// for it); else what stopped the decoding.
func (d *decoder) failure(sum *checksum) error {
	if !errors.Is(d.err, ErrDamaged) {
		return d.err
	}
	if !d.eof {
		if _, err := io.Copy(io.Discard, d.r); err != nil {
			return err
		}
	}
	if !sum.matches() {
		return fmt.Errorf("%w: its checksum does not match its content", ErrDamaged)
	}
	return d.err
}

func (d *decoder) byte() byte {
	if !d.fill(1) {
		return 0
	}
	d.pos++
	return d.buf[d.pos-1]
}

func (d *decoder) uint() uint64 {
	if d.err == nil && d.end-d.pos >= binary.MaxVarintLen64 { // the usual case: no refill within the number
		n, k := binary.Uvarint(d.buf[d.pos:d.end])
		if k > 0 {
			d.pos += k
			return n
		}
	}
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
	if n > uint64(d.size-d.off-int64(d.pos)) {
		d.fail("a count larger than the file")
		return 0
	}
	return int(n)
}

// bytes reads a string's bytes, valid until the next read.
func (d *decoder) bytes() []byte {
	n := d.count()
	if d.err != nil || !d.fill(n) {
		return nil
	}
	d.pos += n
	return d.buf[d.pos-n : d.pos]
}

func (d *decoder) str() string { return string(d.bytes()) }

// name reads a string that many users share (a domain, a country),
// held once.
func (d *decoder) name() string {
	b := d.bytes()
	if s, ok := d.names[string(b)]; ok {
		return s
	}
	s := string(b)
	d.names[s] = s
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

// trailer reads the checksum that ends the file, which must end there.
func (d *decoder) trailer() {
	if !d.fill(4) {
		return
	}
	d.pos += 4
	var more [1]byte
	if d.pos < d.end || !d.eof && readSome(d.r, more[:]) {
		d.fail("bytes after the end")
	}
}

// readSome reports whether r has a byte more to read into b.
func readSome(r io.Reader, b []byte) bool {
	n, _ := io.ReadFull(r, b)
	return n > 0
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

// minUserBytes is the fewest bytes a user takes in the file.
const minUserBytes = 8

// users reads the users into their compact form.
func (d *decoder) users(table []string) reconcile.Users {
	var users reconcile.Users
	n := d.count()
	memberships := d.count()
	if d.err != nil {
		return users
	}
	users.Grow(min(n, int((d.size-d.off-int64(d.pos))/minUserBytes)))
	var groups []string
	var text []byte
	for range n {
		code, flags := d.byte(), d.byte()
		if int(code) >= len(typeCodes) {
			d.fail("an unknown identity type")
		}
		// The email, username, first and last names in one string.
		var ends [4]int
		text = append(text[:0], d.bytes()...)
		ends[0] = len(text)
		if flags&userNameIsEmail == 0 {
			text = append(text, d.bytes()...)
		}
		ends[1] = len(text)
		domain := d.name()
		text = append(text, d.bytes()...)
		ends[2] = len(text)
		text = append(text, d.bytes()...)
		ends[3] = len(text)
		country := d.name()
		k := d.count()
		if memberships -= k; memberships < 0 {
			d.fail("more memberships than counted")
		}
		groups = groups[:0]
		for range k {
			g := d.uint()
			if d.err == nil && g >= uint64(len(table)) {
				d.fail("a group outside the group table")
			}
			if d.err != nil {
				break
			}
			groups = append(groups, table[g])
		}
		if d.err != nil {
			return reconcile.Users{}
		}
		t := string(text)
		u := reconcile.User{Type: typeCodes[code], Email: t[:ends[0]], Username: t[ends[0]:ends[1]], Domain: domain,
			FirstName: t[ends[1]:ends[2]], LastName: t[ends[2]:ends[3]], Country: country, Groups: groups}
		if flags&userNameIsEmail != 0 {
			u.Username = u.Email
		}
		users.Add(u)
	}
	return users
}
