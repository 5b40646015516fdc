package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/reconcile"
)

// sample is a snapshot with one of everything the format holds.
func sample() *Snapshot {
	return &Snapshot{
		Fingerprint: Fingerprint("1234ABCD@VendorOrg", "https://um.example.com/"), Org: "1234ABCD@VendorOrg",
		FullRead: time.Date(2026, 11, 26, 8, 0, 0, 123, time.UTC), Saved: time.Date(2026, 11, 26, 9, 30, 0, 0, time.UTC),
		Doubt: "", ByGroup: true, ReadGroups: []string{"Engineering", "Design"}, InvitesKnown: true,
		Users: reconcile.UsersOf([]reconcile.User{
			{Type: reconcile.EnterpriseID, Email: "ann@example.com", Username: "ann@example.com", Domain: "example.com",
				FirstName: "Ann", LastName: "Lee", Country: "US", Groups: []string{"Engineering", "Design"}},
			{Type: reconcile.FederatedID, Email: "bo@fed.example.net", Username: "bo", Domain: "fed.example.net",
				FirstName: "Bö", LastName: "Ng", Country: "DE", Groups: []string{"design"}},
			{Type: reconcile.VendorID, Email: "cy@gmail.example", Username: "cy@gmail.example"},
			{Type: reconcile.UnknownID, Email: "dee@example.com"},
		}...),
		Invites: []reconcile.Invite{{Email: "eve@gmail.example", LastSent: time.UnixMilli(1764000000123).UTC()},
			{Email: "fay@gmail.example", LastSent: time.UnixMilli(1760000000000).UTC(), Expired: true}},
		Groups: []string{"Empty Group", "Engineering", "Design", "design"},
	}
}

func encode(t testing.TB, s *Snapshot) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Encode(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func decodeBytes(b []byte) (*Snapshot, error) { return Decode(bytes.NewReader(b), int64(len(b))) }

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	want := sample()
	got, err := decodeBytes(encode(t, want))
	if err != nil {
		t.Fatal(err)
	}
	// A user without a username decodes with its email as username only
	// when it was written so; the others come back as they were.
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	empty, err := decodeBytes(encode(t, &Snapshot{}))
	if err != nil || empty.Users.Len() != 0 || !empty.FullRead.IsZero() {
		t.Errorf("empty snapshot: %+v, %v", empty, err)
	}
}

// TestGroupsOfUsersAreKnown: every group a user belongs to is among the
// known groups once decoded.
func TestGroupsOfUsersAreKnown(t *testing.T) {
	t.Parallel()
	s := sample()
	s.Groups = nil
	got, err := decodeBytes(encode(t, s))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Engineering", "Design", "design"}; !reflect.DeepEqual(got.Groups, want) {
		t.Errorf("groups %q, want %q", got.Groups, want)
	}
}

// TestDamageIsDetected: every single flipped byte and every cut is
// refused, never decoded into another snapshot.
func TestDamageIsDetected(t *testing.T) {
	t.Parallel()
	good := encode(t, sample())
	for i := range good {
		b := bytes.Clone(good)
		b[i] ^= 0x20
		if s, err := decodeBytes(b); err == nil {
			t.Fatalf("byte %d flipped: decoded %+v", i, s)
		} else if !errors.Is(err, ErrDamaged) && !errors.Is(err, ErrNotSnapshot) && !errors.Is(err, ErrFormat) {
			t.Fatalf("byte %d flipped: %v", i, err)
		}
	}
	for n := range len(good) {
		if _, err := decodeBytes(good[:n]); err == nil {
			t.Fatalf("cut at %d: decoded", n)
		}
	}
}

func TestOtherFormatVersion(t *testing.T) {
	t.Parallel()
	b := []byte(magic + "\x02rest of a future format")
	if _, err := decodeBytes(b); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "format 2") {
		t.Errorf("format 2: %v", err)
	}
	if _, err := decodeBytes([]byte("users,groups\n")); !errors.Is(err, ErrNotSnapshot) {
		t.Errorf("a CSV file: %v", err)
	}
}

func TestStoreSaveLoad(t *testing.T) {
	t.Parallel()
	st := Open(t.TempDir())
	if _, err := st.Load("main"); !errors.Is(err, ErrMissing) {
		t.Fatalf("no snapshot yet: %v", err)
	}
	if err := st.MarkSending("main", "run 1 sending since 09:00"); err != nil {
		t.Fatal(err)
	}
	if note, ok, err := st.Sending("main"); !ok || err != nil || note != "run 1 sending since 09:00" {
		t.Fatalf("marker: %q %v %v", note, ok, err)
	}
	want := sample()
	if err := st.Save("main", want); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := st.Sending("main"); ok {
		t.Error("the marker stays after Save")
	}
	got, err := st.Load("main")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("load: %v\n%+v", err, got)
	}
	if _, err := st.Load("emea"); !errors.Is(err, ErrMissing) {
		t.Errorf("another organization: %v", err)
	}
	files, _ := os.ReadDir(st.dir)
	for _, f := range files {
		if info, _ := f.Info(); info.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", f.Name(), info.Mode().Perm())
		}
		if strings.HasPrefix(f.Name(), ".") {
			t.Errorf("temporary file left: %s", f.Name())
		}
	}
}

func TestLockIsExclusive(t *testing.T) {
	t.Parallel()
	st := Open(t.TempDir())
	l, err := st.Lock("main", "pid 1, since 09:00")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Lock("main", "pid 2"); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid 1, since 09:00") {
		t.Errorf("second lock: %v", err)
	}
	other, err := st.Lock("emea", "pid 2")
	if err != nil {
		t.Errorf("another organization's lock: %v", err)
	} else {
		other.Unlock()
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l, err = st.Lock("main", "pid 3")
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	l.Unlock()
}

// TestLockDiesWithItsProcess: a run killed while holding the lock does not
// keep the next run out.
func TestLockDiesWithItsProcess(t *testing.T) {
	t.Parallel()
	if dir := os.Getenv("SNAPSHOT_TEST_HOLD"); dir != "" {
		st := Open(dir)
		if _, err := st.Lock("main", fmt.Sprintf("pid %d", os.Getpid())); err != nil {
			t.Fatal(err)
		}
		fmt.Println("locked")
		time.Sleep(time.Minute)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestLockDiesWithItsProcess$")
	cmd.Env = append(os.Environ(), "SNAPSHOT_TEST_HOLD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := out.Read(buf); err != nil || string(buf) != "locked" {
		t.Fatalf("helper: %q %v", buf, err)
	}
	st := Open(dir)
	if _, err := st.Lock("main", "me"); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", cmd.Process.Pid)) {
		t.Fatalf("while the helper holds it: %v", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	l, err := st.Lock("main", "me")
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	l.Unlock()
}

// TestNoSecretField: the snapshot's fields are the organization's
// identity (fingerprint, id), times, the users as the listing shows them
// and the invites; the fingerprint does not show the service's address.
func TestNoSecretField(t *testing.T) {
	t.Parallel()
	b := encode(t, sample())
	if bytes.Contains(b, []byte("um.example.com")) {
		t.Error("the service address is in the file")
	}
	fields := reflect.VisibleFields(reflect.TypeOf(Snapshot{}))
	var names []string
	for _, f := range fields {
		names = append(names, f.Name)
	}
	if want := "Fingerprint Org FullRead Saved Doubt ByGroup ReadGroups InvitesKnown Users Invites Groups"; strings.Join(names, " ") != want {
		t.Errorf("fields %v: a new field needs a look at what it holds (no secret), want %s", names, want)
	}
}

func TestFingerprint(t *testing.T) {
	t.Parallel()
	a := Fingerprint("1234ABCD@VendorOrg", "https://um.example.com/")
	if a != Fingerprint(" 1234abcd@vendororg", "https://um.example.com") {
		t.Error("the same organization and service differ by case or a slash")
	}
	if a == Fingerprint("2234ABCD@VendorOrg", "https://um.example.com") || a == Fingerprint("1234ABCD@VendorOrg", "https://um2.example.com") {
		t.Error("another organization or service has the same fingerprint")
	}
}

// FuzzDecode decodes any body under a valid header and checksum (a body
// under a wrong checksum is refused before it is read): it must fail
// cleanly or give a snapshot that encodes and decodes again.
func FuzzDecode(f *testing.F) {
	head := len(magic) + 1
	for _, s := range []*Snapshot{sample(), {}} {
		b := encode(f, s)
		f.Add(b[head : len(b)-4])
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		b := append([]byte(magic+"\x01"), body...)
		b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
		s, err := decodeBytes(b)
		if err != nil {
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("not reported as damage: %v", err)
			}
			return
		}
		again, err := decodeBytes(encode(t, s))
		if err != nil || again.Users.Len() != s.Users.Len() || len(again.Invites) != len(s.Invites) {
			t.Fatalf("a decoded snapshot does not encode back: %v", err)
		}
	})
}

// TestReadsWhatTheLastReleaseWrote: testdata/format1.snapshot is sample()
// as the release before the streaming decoder wrote it; it decodes to the
// same snapshot, and today's encoder writes the same bytes.
func TestReadsWhatTheLastReleaseWrote(t *testing.T) {
	t.Parallel()
	old, err := os.ReadFile("testdata/format1.snapshot")
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeBytes(old)
	if err != nil {
		t.Fatal(err)
	}
	if want := sample(); !reflect.DeepEqual(got.Users.List(), want.Users.List()) || got.Fingerprint != want.Fingerprint ||
		!reflect.DeepEqual(got.Invites, want.Invites) || !reflect.DeepEqual(got.Groups, want.Groups) {
		t.Errorf("decoded %+v", got)
	}
	if !bytes.Equal(encode(t, sample()), old) {
		t.Error("today's encoder writes other bytes than the last release's")
	}
}
