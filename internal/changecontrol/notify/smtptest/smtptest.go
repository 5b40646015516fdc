// Package smtptest is an SMTP server on loopback for tests: it speaks the
// dialogue of RFC 5321 (EHLO, STARTTLS of RFC 3207 with a certificate of
// its own, AUTH PLAIN of RFC 4954 after TLS only, MAIL, RCPT, DATA, QUIT)
// and keeps the mail it receives.
package smtptest

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is a running SMTP server.
type Server struct {
	Addr string
	// Roots trusts the server's certificate; CertPEM is it in PEM.
	Roots   *x509.CertPool
	CertPEM []byte
	// User and Password are the credentials it accepts.
	User, Password string
	startTLS       bool // offer STARTTLS

	mu       sync.Mutex
	mails    []Mail
	authSeen int
}

// Mail is one mail received.
type Mail struct {
	From string
	To   []string
	Data string
	TLS  bool // received over TLS
}

// Start serves on a loopback port until the test ends, offering STARTTLS
// when startTLS is set; it accepts user orgsync with password s3cret-pw.
func Start(t testing.TB, startTLS bool) *Server {
	t.Helper()
	cert, roots, certPEM := selfSigned(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &Server{Addr: ln.Addr().String(), Roots: roots, CertPEM: certPEM, startTLS: startTLS, User: "orgsync", Password: "s3cret-pw"}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c, cfg)
		}
	}()
	return s
}

// Received returns the mail received so far.
func (s *Server) Received() []Mail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Mail(nil), s.mails...)
}

// AuthAttempts counts the AUTH commands received, accepted or not.
func (s *Server) AuthAttempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.authSeen
}

// serve runs one session.
func (s *Server) serve(c net.Conn, cfg *tls.Config) {
	defer func() { c.Close() }()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	r, w := bufio.NewReader(c), bufio.NewWriter(c)
	reply := func(lines ...string) {
		for _, l := range lines {
			w.WriteString(l + "\r\n")
		}
		w.Flush()
	}
	reply("220 test.example ESMTP ready")
	var cur Mail
	secure, authed := false, false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.TrimRight(line, "\r\n")
		verb := strings.ToUpper(strings.Fields(cmd + " x")[0])
		switch {
		case verb == "EHLO":
			ext := []string{"250-test.example"}
			if s.startTLS && !secure {
				ext = append(ext, "250-STARTTLS")
			}
			if secure {
				ext = append(ext, "250-AUTH PLAIN")
			}
			reply(append(ext, "250 8BITMIME")...)
		case verb == "STARTTLS" && s.startTLS && !secure:
			reply("220 go ahead")
			tc := tls.Server(c, cfg)
			if tc.Handshake() != nil {
				return
			}
			c, secure = tc, true
			r, w = bufio.NewReader(tc), bufio.NewWriter(tc)
		case verb == "AUTH" && secure:
			f := strings.Fields(cmd)
			raw, _ := base64.StdEncoding.DecodeString(f[len(f)-1])
			parts := strings.Split(string(raw), "\x00")
			s.mu.Lock()
			s.authSeen++
			s.mu.Unlock()
			if len(parts) == 3 && parts[1] == s.User && parts[2] == s.Password {
				authed = true
				reply("235 2.7.0 authenticated")
			} else {
				reply("535 5.7.8 authentication credentials invalid")
			}
		case verb == "MAIL":
			if s.startTLS && !authed {
				reply("530 5.7.0 authentication required")
				continue
			}
			cur = Mail{From: bracketed(cmd), TLS: secure}
			reply("250 ok")
		case verb == "RCPT":
			cur.To = append(cur.To, bracketed(cmd))
			reply("250 ok")
		case verb == "DATA":
			reply("354 end with .")
			var data strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				data.WriteString(strings.TrimPrefix(l, "."))
			}
			cur.Data = data.String()
			s.mu.Lock()
			s.mails = append(s.mails, cur)
			s.mu.Unlock()
			reply("250 queued")
		case verb == "QUIT":
			reply("221 bye")
			return
		case verb == "RSET" || verb == "NOOP":
			reply("250 ok")
		default:
			reply("502 command not implemented")
		}
	}
}

// selfSigned makes a certificate for 127.0.0.1, the pool that trusts it
// and its PEM.
func selfSigned(t testing.TB) (tls.Certificate, *x509.CertPool, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(c)
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool, certPEM
}

// bracketed is the <path> of a MAIL or RCPT command.
func bracketed(cmd string) string {
	_, rest, _ := strings.Cut(cmd, "<")
	path, _, _ := strings.Cut(rest, ">")
	return path
}
