package notify

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"math/big"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// smtpServer is an SMTP server on loopback for the tests: it speaks the
// dialogue of RFC 5321 (EHLO, STARTTLS of RFC 3207, AUTH PLAIN of RFC
// 4954 after TLS only, MAIL, RCPT, DATA, QUIT) and keeps what it received.
type smtpServer struct {
	addr     string
	roots    *x509.CertPool
	startTLS bool // offer STARTTLS
	user     string
	password string

	mu       sync.Mutex
	mails    []mail
	authSeen []string // the credentials of each AUTH, accepted or not
}

type mail struct {
	from string
	to   []string
	data string
	tls  bool
}

// startSMTP serves until the test ends.
func startSMTP(t *testing.T, startTLS bool) *smtpServer {
	t.Helper()
	cert, roots := selfSigned(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &smtpServer{addr: ln.Addr().String(), roots: roots, startTLS: startTLS, user: "orgsync", password: "s3cret-pw"}
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

func (s *smtpServer) received() []mail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]mail(nil), s.mails...)
}

// serve runs one session.
func (s *smtpServer) serve(c net.Conn, cfg *tls.Config) {
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
	var cur mail
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
			s.authSeen = append(s.authSeen, strings.Join(parts, "|"))
			s.mu.Unlock()
			if len(parts) == 3 && parts[1] == s.user && parts[2] == s.password {
				authed = true
				reply("235 2.7.0 authenticated")
			} else {
				reply("535 5.7.8 authentication credentials invalid")
			}
		case verb == "MAIL":
			if s.user != "" && s.startTLS && !authed {
				reply("530 5.7.0 authentication required")
				continue
			}
			cur = mail{from: bracketed(cmd), tls: secure}
			reply("250 ok")
		case verb == "RCPT":
			cur.to = append(cur.to, bracketed(cmd))
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
			cur.data = data.String()
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

// selfSigned makes a certificate for 127.0.0.1 and the pool that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
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
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// bracketed is the <path> of a MAIL or RCPT command.
func bracketed(cmd string) string {
	_, rest, _ := strings.Cut(cmd, "<")
	path, _, _ := strings.Cut(rest, ">")
	return path
}
