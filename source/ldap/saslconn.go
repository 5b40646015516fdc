package ldap

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
)

// securityLayer protects the messages after a SASL bind that negotiated
// integrity (RFC 4752 section 3.3, RFC 4422 section 3.7).
type securityLayer interface {
	wrap(payload []byte) ([]byte, error)
	unwrap(token []byte) ([]byte, error)
}

// saslConn sends every write as security-layer buffers (a four-byte
// length, then the wrapped data) and reads the payloads of such buffers.
type saslConn struct {
	net.Conn
	layer   securityLayer
	maxSend int    // the most one buffer may carry; 0: no limit
	pending []byte // unwrapped data not read yet
}

// protect puts layer between the connection and its LDAP messages;
// maxSend is the most the server takes in one buffer (0: no limit).
func (c *wireConn) protect(layer securityLayer, maxSend int) {
	sc := &saslConn{Conn: c.conn, layer: layer, maxSend: maxSend}
	c.conn, c.r = sc, bufio.NewReaderSize(sc, 64<<10)
}

func (c *saslConn) Write(b []byte) (int, error) {
	written := 0
	for len(b) > 0 {
		chunk := b
		if c.maxSend > 0 && len(chunk) > c.maxSend/2 { // leave room for the token's header and checksum
			chunk = chunk[:c.maxSend/2]
		}
		token, err := c.layer.wrap(chunk)
		if err != nil {
			return written, err
		}
		if _, err := c.Conn.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(token))), token...)); err != nil {
			return written, err
		}
		written += len(chunk)
		b = b[len(chunk):]
	}
	return written, nil
}

func (c *saslConn) Read(b []byte) (int, error) {
	for len(c.pending) == 0 {
		var size [4]byte
		if _, err := io.ReadFull(c.Conn, size[:]); err != nil {
			return 0, err
		}
		n := binary.BigEndian.Uint32(size[:])
		if n > maxMessageSize {
			return 0, fmt.Errorf("security layer buffer of %d bytes exceeds the limit of %d", n, maxMessageSize)
		}
		token := make([]byte, n)
		if _, err := io.ReadFull(c.Conn, token); err != nil {
			return 0, err
		}
		payload, err := c.layer.unwrap(token)
		if err != nil {
			return 0, err
		}
		c.pending = payload
	}
	n := copy(b, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}
