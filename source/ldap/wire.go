package ldap

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"time"

	ber "github.com/go-asn1-ber/asn1-ber"
	ldap3 "github.com/go-ldap/ldap/v3"
)

// wireConn is the small LDAPv3 client the source reads with: simple bind,
// StartTLS and search, one operation at a time. Requests are encoded with
// go-ldap's BER packets; responses are decoded here straight from the
// message bytes, because go-ldap's generic BER decoder re-encodes every
// nested element: over go-ldap's own client the source reads 100,000 users
// at 0.30-0.39 of ldapsearch's speed, CPU-bound (BenchmarkRead100kGoLDAP,
// scripts/ldap-bench.sh). Results come back as go-ldap entries and errors.
type wireConn struct {
	conn    net.Conn
	r       *bufio.Reader
	buf     []byte // the last message read; reused, since entries copy what they keep
	msgID   int64
	timeout time.Duration // per operation; 0 means none
}

// LDAP protocol tags: requests (application class numbers), responses
// (whole tag bytes) and the BER universal tags read here.
const (
	tagBindRequest     = 0
	tagUnbindRequest   = 2
	tagSearchRequest   = 3
	tagExtendedRequest = 23
	opBindResponse     = 0x61
	opSearchEntry      = 0x64
	opSearchDone       = 0x65
	opSearchReference  = 0x73
	opExtendedResponse = 0x78
	tagControls        = 0xa0
	tagServerSaslCreds = 0x87
	tagSequence        = 0x30
	tagOctetString     = 0x04
	tagInteger         = 0x02
	startTLSOID        = "1.3.6.1.4.1.1466.20037"
	maxMessageSize     = 64 << 20
)

// dialWire connects to an ldap:// or ldaps:// URL.
func dialWire(rawURL string, tc *tls.Config, connectTimeout time.Duration) (*wireConn, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	host := u.Host
	if u.Port() == "" {
		port := "389"
		if u.Scheme == "ldaps" {
			port = "636"
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	d := &net.Dialer{Timeout: connectTimeout}
	var conn net.Conn
	if u.Scheme == "ldaps" {
		conn, err = tls.DialWithDialer(d, "tcp", host, tc)
	} else {
		conn, err = d.Dial("tcp", host)
	}
	if err != nil {
		return nil, err
	}
	return &wireConn{conn: conn, r: bufio.NewReaderSize(conn, 64<<10)}, nil
}

// Close sends an unbind and closes the connection.
func (c *wireConn) Close() error {
	_ = c.conn.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = c.send(ber.Encode(ber.ClassApplication, ber.TypePrimitive, tagUnbindRequest, nil, "Unbind"), nil)
	return c.conn.Close()
}

// isTLS reports whether the connection is encrypted (ldaps:// or StartTLS).
func (c *wireConn) isTLS() bool {
	_, ok := c.conn.(*tls.Conn)
	return ok
}

// startTLS upgrades the connection (RFC 4511 section 4.14).
func (c *wireConn) startTLS(tc *tls.Config) error {
	op := ber.Encode(ber.ClassApplication, ber.TypeConstructed, tagExtendedRequest, nil, "Extended Request")
	op.AppendChild(ber.NewString(ber.ClassContext, ber.TypePrimitive, 0, startTLSOID, "StartTLS"))
	if err := c.roundTrip(op, opExtendedResponse); err != nil {
		return err
	}
	tlsConn := tls.Client(c.conn, tc)
	if err := tlsConn.Handshake(); err != nil {
		return err
	}
	c.conn, c.r = tlsConn, bufio.NewReaderSize(tlsConn, 64<<10)
	return nil
}

// bind is a simple bind; an empty dn and password bind anonymously.
func (c *wireConn) bind(dn, password string) error {
	op := ber.Encode(ber.ClassApplication, ber.TypeConstructed, tagBindRequest, nil, "Bind Request")
	op.AppendChild(ber.NewInteger(ber.ClassUniversal, ber.TypePrimitive, ber.TagInteger, 3, "Version"))
	op.AppendChild(ber.NewString(ber.ClassUniversal, ber.TypePrimitive, ber.TagOctetString, dn, "User Name"))
	op.AppendChild(ber.NewString(ber.ClassContext, ber.TypePrimitive, 0, password, "Password"))
	return c.roundTrip(op, opBindResponse)
}

// saslBind sends one step of a SASL bind (RFC 4513 section 5.2.1.2) and
// returns the server's credentials of its answer; done is false while the
// server says the bind is in progress (saslBindInProgress).
func (c *wireConn) saslBind(mechanism string, credentials []byte) (serverCreds []byte, done bool, err error) {
	op := ber.Encode(ber.ClassApplication, ber.TypeConstructed, tagBindRequest, nil, "Bind Request")
	op.AppendChild(ber.NewInteger(ber.ClassUniversal, ber.TypePrimitive, ber.TagInteger, 3, "Version"))
	op.AppendChild(ber.NewString(ber.ClassUniversal, ber.TypePrimitive, ber.TagOctetString, "", "User Name"))
	auth := ber.Encode(ber.ClassContext, ber.TypeConstructed, 3, nil, "SASL")
	auth.AppendChild(ber.NewString(ber.ClassUniversal, ber.TypePrimitive, ber.TagOctetString, mechanism, "Mechanism"))
	if credentials != nil {
		auth.AppendChild(ber.NewString(ber.ClassUniversal, ber.TypePrimitive, ber.TagOctetString, string(credentials), "Credentials"))
	}
	op.AppendChild(auth)
	id, err := c.send(op, nil)
	if err != nil {
		return nil, false, err
	}
	m, err := c.read(id)
	if err != nil {
		return nil, false, err
	}
	if m.op != opBindResponse {
		return nil, false, fmt.Errorf("unexpected response 0x%02x", m.op)
	}
	serverCreds = saslCredentials(m.body)
	err = resultError(m.body)
	if ldap3.IsErrorWithCode(err, ldap3.LDAPResultSaslBindInProgress) {
		return serverCreds, false, nil
	}
	return serverCreds, err == nil, err
}

// saslCredentials returns the serverSaslCreds ([7]) of a bind response,
// nil when it has none.
func saslCredentials(body []byte) []byte {
	rest := body
	for len(rest) > 0 {
		tag, content, next, err := tlv(rest)
		if err != nil {
			return nil
		}
		if tag == tagServerSaslCreds {
			return content
		}
		rest = next
	}
	return nil
}

// roundTrip sends op and reads its one response, which must have tag want.
func (c *wireConn) roundTrip(op *ber.Packet, want byte) error {
	id, err := c.send(op, nil)
	if err != nil {
		return err
	}
	m, err := c.read(id)
	if err != nil {
		return err
	}
	if m.op != want {
		return fmt.Errorf("unexpected response 0x%02x", m.op)
	}
	return resultError(m.body)
}

// search sends one search request (with the paging control when paging is
// not nil) and calls each for every entry until the search is done. It
// returns the paging cookie of the final response, which points into the
// read buffer.
func (c *wireConn) search(q query, timeLimit int, paging *ldap3.ControlPaging, each func(*ldap3.Entry)) ([]byte, error) {
	filter, err := ldap3.CompileFilter(q.filter)
	if err != nil {
		return nil, err
	}
	op := ber.Encode(ber.ClassApplication, ber.TypeConstructed, tagSearchRequest, nil, "Search Request")
	op.AppendChild(ber.NewString(ber.ClassUniversal, ber.TypePrimitive, ber.TagOctetString, q.base, "Base DN"))
	op.AppendChild(ber.NewInteger(ber.ClassUniversal, ber.TypePrimitive, ber.TagEnumerated, uint64(q.scope), "Scope"))
	op.AppendChild(ber.NewInteger(ber.ClassUniversal, ber.TypePrimitive, ber.TagEnumerated, uint64(ldap3.NeverDerefAliases), "Deref Aliases"))
	op.AppendChild(ber.NewInteger(ber.ClassUniversal, ber.TypePrimitive, ber.TagInteger, uint64(0), "Size Limit"))
	op.AppendChild(ber.NewInteger(ber.ClassUniversal, ber.TypePrimitive, ber.TagInteger, uint64(timeLimit), "Time Limit"))
	op.AppendChild(ber.NewBoolean(ber.ClassUniversal, ber.TypePrimitive, ber.TagBoolean, false, "Types Only"))
	op.AppendChild(filter)
	attrs := ber.Encode(ber.ClassUniversal, ber.TypeConstructed, ber.TagSequence, nil, "Attributes")
	for _, a := range q.attrs {
		attrs.AppendChild(ber.NewString(ber.ClassUniversal, ber.TypePrimitive, ber.TagOctetString, a, "Attribute"))
	}
	op.AppendChild(attrs)
	var controls []ldap3.Control
	if paging != nil {
		controls = []ldap3.Control{paging}
	}
	id, err := c.send(op, controls)
	if err != nil {
		return nil, err
	}
	ctrls, err := c.readResults(id, each)
	if err != nil {
		return nil, err
	}
	return pagingCookie(ctrls)
}

// readResults reads the entries and the final result of search id.
func (c *wireConn) readResults(id int64, each func(*ldap3.Entry)) ([]byte, error) {
	for {
		m, err := c.read(id)
		if err != nil {
			return nil, err
		}
		switch m.op {
		case opSearchEntry:
			e, err := parseEntry(m.body)
			if err != nil {
				return nil, err
			}
			each(e)
		case opSearchReference:
			// Continuation references point at other servers; the
			// configured base DN is read from this one only.
		case opSearchDone:
			return m.controls, resultError(m.body)
		default:
			return nil, fmt.Errorf("unexpected response 0x%02x to a search", m.op)
		}
	}
}

// send writes one LDAP message and returns its ID.
func (c *wireConn) send(op *ber.Packet, controls []ldap3.Control) (int64, error) {
	c.msgID++
	env := ber.Encode(ber.ClassUniversal, ber.TypeConstructed, ber.TagSequence, nil, "LDAP Request")
	env.AppendChild(ber.NewInteger(ber.ClassUniversal, ber.TypePrimitive, ber.TagInteger, c.msgID, "Message ID"))
	env.AppendChild(op)
	if len(controls) > 0 {
		ctrls := ber.Encode(ber.ClassContext, ber.TypeConstructed, 0, nil, "Controls")
		for _, ctrl := range controls {
			ctrls.AppendChild(ctrl.Encode())
		}
		env.AppendChild(ctrls)
	}
	if c.timeout > 0 {
		_ = c.conn.SetDeadline(time.Now().Add(c.timeout))
	}
	if _, err := c.conn.Write(env.Bytes()); err != nil {
		return 0, ldap3.NewError(ldap3.ErrorNetwork, err)
	}
	return c.msgID, nil
}

// message is one decoded LDAP message.
type message struct {
	op       byte   // protocolOp tag
	body     []byte // protocolOp content
	controls []byte // content of the controls, nil when absent
}

// read reads the next message, which must belong to operation id (or be a
// notice of disconnection, which is an error).
func (c *wireConn) read(id int64) (message, error) {
	buf, err := c.readRaw()
	if err != nil {
		return message{}, ldap3.NewError(ldap3.ErrorNetwork, err)
	}
	idTag, idBytes, rest, err := tlv(buf)
	if err != nil || idTag != tagInteger {
		return message{}, errMalformed
	}
	var m message
	if m.op, m.body, rest, err = tlv(rest); err != nil {
		return message{}, err
	}
	if len(rest) > 0 {
		if tag, ctrls, _, err := tlv(rest); err == nil && tag == tagControls {
			m.controls = ctrls
		}
	}
	got := parseInt(idBytes)
	if got == 0 && m.op == opExtendedResponse {
		return message{}, fmt.Errorf("server disconnected: %w", resultError(m.body))
	}
	if got != id {
		return message{}, fmt.Errorf("response for message %d while waiting for %d", got, id)
	}
	return m, nil
}

// readRaw reads the content of the next LDAPMessage SEQUENCE into c.buf,
// which stays valid until the next read.
func (c *wireConn) readRaw() ([]byte, error) {
	tag, err := c.r.ReadByte()
	if err != nil {
		return nil, err
	}
	if tag != tagSequence {
		return nil, errMalformed
	}
	first, err := c.r.ReadByte()
	if err != nil {
		return nil, err
	}
	length := int(first)
	if first&0x80 != 0 {
		n := int(first & 0x7f)
		if n == 0 || n > 4 {
			return nil, errMalformed
		}
		length = 0
		for range n {
			b, err := c.r.ReadByte()
			if err != nil {
				return nil, err
			}
			length = length<<8 | int(b)
		}
	}
	if length > maxMessageSize {
		return nil, fmt.Errorf("message of %d bytes exceeds the limit of %d", length, maxMessageSize)
	}
	if cap(c.buf) < length {
		c.buf = make([]byte, length)
	}
	c.buf = c.buf[:length]
	_, err = io.ReadFull(c.r, c.buf)
	return c.buf, err
}

var errMalformed = errors.New("malformed LDAP message from the server")

// tlv splits the first BER element (single-byte tag, definite length) off b.
func tlv(b []byte) (tag byte, content, rest []byte, err error) {
	tag, start, end, err := span(b, 0)
	if err != nil {
		return 0, nil, nil, err
	}
	return tag, b[start:end], b[end:], nil
}

// span returns the tag and the content bounds [start, end) of the BER
// element at b[i:] (single-byte tag, definite length).
func span(b []byte, i int) (tag byte, start, end int, err error) {
	if len(b)-i < 2 {
		return 0, 0, 0, errMalformed
	}
	tag, length, start := b[i], int(b[i+1]), i+2
	if b[i+1]&0x80 != 0 {
		n := int(b[i+1] & 0x7f)
		if n == 0 || n > 4 || len(b)-start < n {
			return 0, 0, 0, errMalformed
		}
		length = 0
		for _, x := range b[start : start+n] {
			length = length<<8 | int(x)
		}
		start += n
	}
	if length < 0 || len(b)-start < length {
		return 0, 0, 0, errMalformed
	}
	return tag, start, start + length, nil
}

// parseInt decodes a BER integer (two's complement, big-endian).
func parseInt(b []byte) int64 {
	var v int64
	if len(b) > 0 && b[0]&0x80 != 0 {
		v = -1
	}
	for _, x := range b {
		v = v<<8 | int64(x)
	}
	return v
}

// parseEntry decodes a SearchResultEntry. The entry's strings (DN,
// attribute names, values; binary values such as objectSid too) are cut
// from one copy of the message, so that the read buffer can be reused and
// a large directory costs few allocations; ByteValues are not filled.
func parseEntry(body []byte) (*ldap3.Entry, error) {
	str := string(body)
	_, dnStart, dnEnd, err := span(body, 0)
	if err != nil {
		return nil, err
	}
	_, i, attrsEnd, err := span(body, dnEnd)
	if err != nil {
		return nil, err
	}
	list := body[:attrsEnd]
	attrs := make([]ldap3.EntryAttribute, 0, 8)
	values := make([]string, 0, 8)
	for i < attrsEnd {
		var a ldap3.EntryAttribute
		var next int
		if a, values, next, err = parseAttribute(list, str, i, values); err != nil {
			return nil, err
		}
		attrs = append(attrs, a)
		i = next
	}
	e := &ldap3.Entry{DN: str[dnStart:dnEnd], Attributes: make([]*ldap3.EntryAttribute, len(attrs))}
	for k := range attrs {
		e.Attributes[k] = &attrs[k]
	}
	return e, nil
}

// parseAttribute decodes the PartialAttribute at b[i:], appending its
// values to values, and returns the offset after it. str is b as a string.
func parseAttribute(b []byte, str string, i int, values []string) (ldap3.EntryAttribute, []string, int, error) {
	_, start, end, err := span(b, i)
	if err != nil {
		return ldap3.EntryAttribute{}, values, 0, err
	}
	attr := b[:end]
	_, nameStart, nameEnd, err := span(attr, start)
	if err != nil {
		return ldap3.EntryAttribute{}, values, 0, err
	}
	_, j, valsEnd, err := span(attr, nameEnd)
	if err != nil {
		return ldap3.EntryAttribute{}, values, 0, err
	}
	vals := attr[:valsEnd]
	first := len(values)
	for j < valsEnd {
		_, vStart, vEnd, err := span(vals, j)
		if err != nil {
			return ldap3.EntryAttribute{}, values, 0, err
		}
		values = append(values, str[vStart:vEnd])
		j = vEnd
	}
	a := ldap3.EntryAttribute{Name: str[nameStart:nameEnd], Values: values[first:len(values):len(values)]}
	return a, values, end, nil
}

// resultError returns nil for an LDAPResult with code success, else an
// *ldap3.Error with the code and the server's diagnostic message.
func resultError(body []byte) error {
	_, code, rest, err := tlv(body)
	if err != nil {
		return err
	}
	var diag []byte
	if _, _, rest, err = tlv(rest); err == nil { // matchedDN
		_, diag, _, _ = tlv(rest)
	}
	rc := uint16(parseInt(code))
	if rc == ldap3.LDAPResultSuccess {
		return nil
	}
	return ldap3.NewError(rc, errors.New(string(diag)))
}

// pagingCookie returns the cookie of the Simple Paged Results control in
// the controls of a response; it is empty after the last page or when the
// server does not page.
func pagingCookie(controls []byte) ([]byte, error) {
	for len(controls) > 0 {
		var ctrl []byte
		var err error
		if _, ctrl, controls, err = tlv(controls); err != nil {
			return nil, err
		}
		_, oid, rest, err := tlv(ctrl)
		if err != nil || string(oid) != ldap3.ControlTypePaging {
			continue
		}
		return cookieOf(rest)
	}
	return nil, nil
}

// cookieOf reads the cookie from the rest of a paging control: an
// optional criticality, then the value realSearchControlValue.
func cookieOf(rest []byte) ([]byte, error) {
	for len(rest) > 0 {
		tag, content, next, err := tlv(rest)
		if err != nil {
			return nil, err
		}
		rest = next
		if tag != tagOctetString {
			continue
		}
		_, seq, _, err := tlv(content)
		if err != nil {
			return nil, err
		}
		_, _, afterSize, err := tlv(seq)
		if err != nil {
			return nil, err
		}
		_, cookie, _, err := tlv(afterSize)
		return cookie, err
	}
	return nil, nil
}
