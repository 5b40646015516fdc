package ldap

import (
	"bufio"
	"bytes"
	"testing"

	ber "github.com/go-asn1-ber/asn1-ber"
	ldap3 "github.com/go-ldap/ldap/v3"
)

// encodeMessage encodes one LDAP message as a server would send it.
func encodeMessage(id int64, op *ber.Packet, controls ...ldap3.Control) []byte {
	env := ber.Encode(ber.ClassUniversal, ber.TypeConstructed, ber.TagSequence, nil, "")
	env.AppendChild(ber.NewInteger(ber.ClassUniversal, ber.TypePrimitive, ber.TagInteger, id, ""))
	env.AppendChild(op)
	if len(controls) > 0 {
		ctrls := ber.Encode(ber.ClassContext, ber.TypeConstructed, 0, nil, "")
		for _, c := range controls {
			ctrls.AppendChild(c.Encode())
		}
		env.AppendChild(ctrls)
	}
	return env.Bytes()
}

func entryOp(dn string, attrs map[string][]string) *ber.Packet {
	op := ber.Encode(ber.ClassApplication, ber.TypeConstructed, 4, nil, "")
	op.AppendChild(ber.NewString(ber.ClassUniversal, ber.TypePrimitive, ber.TagOctetString, dn, ""))
	list := ber.Encode(ber.ClassUniversal, ber.TypeConstructed, ber.TagSequence, nil, "")
	for name, values := range attrs {
		a := ber.Encode(ber.ClassUniversal, ber.TypeConstructed, ber.TagSequence, nil, "")
		a.AppendChild(ber.NewString(ber.ClassUniversal, ber.TypePrimitive, ber.TagOctetString, name, ""))
		set := ber.Encode(ber.ClassUniversal, ber.TypeConstructed, ber.TagSet, nil, "")
		for _, v := range values {
			set.AppendChild(ber.NewString(ber.ClassUniversal, ber.TypePrimitive, ber.TagOctetString, v, ""))
		}
		a.AppendChild(set)
		list.AppendChild(a)
	}
	op.AppendChild(list)
	return op
}

func resultOp(tag ber.Tag, code int64, diag string) *ber.Packet {
	op := ber.Encode(ber.ClassApplication, ber.TypeConstructed, tag, nil, "")
	op.AppendChild(ber.NewInteger(ber.ClassUniversal, ber.TypePrimitive, ber.TagEnumerated, code, ""))
	op.AppendChild(ber.NewString(ber.ClassUniversal, ber.TypePrimitive, ber.TagOctetString, "", ""))
	op.AppendChild(ber.NewString(ber.ClassUniversal, ber.TypePrimitive, ber.TagOctetString, diag, ""))
	return op
}

func stream(msgs ...[]byte) *wireConn {
	return &wireConn{r: bufio.NewReader(bytes.NewReader(bytes.Join(msgs, nil)))}
}

func TestWireReadResults(t *testing.T) {
	t.Parallel()
	paging := ldap3.NewControlPaging(1000)
	paging.SetCookie([]byte("next-page"))
	c := stream(
		encodeMessage(7, entryOp("uid=a,dc=x", map[string][]string{"mail": {"a@x.com", "b@x.com"}})),
		encodeMessage(7, resultOp(5, 0, ""), paging),
	)
	var got []*ldap3.Entry
	controls, err := c.readResults(7, func(e *ldap3.Entry) { got = append(got, e) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].DN != "uid=a,dc=x" || got[0].GetAttributeValue("mail") != "a@x.com" || len(got[0].GetAttributeValues("mail")) != 2 {
		t.Fatalf("entries = %v", got)
	}
	if cookie, err := pagingCookie(controls); err != nil || string(cookie) != "next-page" {
		t.Fatalf("cookie = %q, %v", cookie, err)
	}
}

func TestWireErrors(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		c    *wireConn
		want string
	}{
		"result code":   {stream(encodeMessage(1, resultOp(5, 4, "size limit"))), `Result Code 4 "Size Limit Exceeded": size limit`},
		"disconnection": {stream(encodeMessage(0, resultOp(24, 52, "shutting down"))), "server disconnected"},
		"wrong id":      {stream(encodeMessage(9, resultOp(5, 0, ""))), "message 9 while waiting for 1"},
		"truncated":     {stream(encodeMessage(1, resultOp(5, 0, ""))[:5]), "EOF"},
		"not LDAP":      {stream([]byte("HTTP/1.1 400 Bad Request\r\n")), "malformed"},
	} {
		_, err := tc.c.readResults(1, func(*ldap3.Entry) {})
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
	}
}

// FuzzWire feeds arbitrary server bytes to the response decoder: it must
// return entries or an error, never panic or loop.
func FuzzWire(f *testing.F) {
	paging := ldap3.NewControlPaging(10)
	paging.SetCookie([]byte("c"))
	f.Add(append(encodeMessage(1, entryOp("cn=x", map[string][]string{"cn": {"x"}})), encodeMessage(1, resultOp(5, 0, ""), paging)...))
	f.Add(encodeMessage(1, resultOp(5, 32, "no such object")))
	f.Add([]byte{0x30, 0x84, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		c := stream(data)
		controls, err := c.readResults(1, func(e *ldap3.Entry) {})
		if err == nil {
			_, _ = pagingCookie(controls)
		}
	})
}
