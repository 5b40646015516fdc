package gate

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	"github.com/orgsync/orgsync/target/umwire"
)

const (
	defaultTokenLifetime = 24 * time.Hour
	defaultWindow        = time.Minute
)

// integration is an Integration with its parsed certificate.
type integration struct {
	Integration
	publicKey *rsa.PublicKey
	notAfter  time.Time
}

// expired reports whether the integration's certificate counts as expired
// at now.
func (in *integration) expired(now time.Time) bool {
	return in.CertificateExpired || now.After(in.notAfter)
}

// validate checks every field of c and returns the integrations by client
// id. Errors name the field, e.g. "Integrations[1].CertificatePEM".
func (c Config) validate() (map[string]*integration, error) {
	var errs []error
	if !umwire.IsOrgID(c.OrgID) {
		errs = append(errs, fmt.Errorf("gate: OrgID %q: must be %s", c.OrgID, umwire.OrgIDForm))
	}
	if c.TokenLifetime < 0 {
		errs = append(errs, fmt.Errorf("gate: TokenLifetime %v: must not be negative", c.TokenLifetime))
	}
	if c.Limits.Read < 0 || c.Limits.App < 0 || c.Limits.Window < 0 {
		errs = append(errs, fmt.Errorf("gate: Limits %+v: must not be negative", c.Limits))
	}
	if err := c.Faults.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("gate: Faults: %w", err))
	}
	ints := make(map[string]*integration, len(c.Integrations))
	for i, in := range c.Integrations {
		parsed, err := parseIntegration(in)
		if err == nil && ints[in.ClientID] != nil {
			err = fmt.Errorf("ClientID %q: duplicate", in.ClientID)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("gate: Integrations[%d].%w", i, err))
			continue
		}
		ints[in.ClientID] = parsed
	}
	return ints, errors.Join(errs...)
}

// parseIntegration checks the required fields and parses the certificate.
// Its errors start with the field name.
func parseIntegration(in Integration) (*integration, error) {
	switch {
	case in.ClientID == "":
		return nil, errors.New("ClientID: required")
	case in.ClientSecret == "":
		return nil, errors.New("ClientSecret: required")
	case in.TechnicalAccountID == "":
		return nil, errors.New("TechnicalAccountID: required")
	}
	block, _ := pem.Decode([]byte(in.CertificatePEM))
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("CertificatePEM: no PEM block of type CERTIFICATE; give the integration's public certificate")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("CertificatePEM: %w", err)
	}
	key, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok {
		return nil, fmt.Errorf("CertificatePEM: public key is %T, want RSA (RS256)", cert.PublicKey)
	}
	return &integration{Integration: in, publicKey: key, notAfter: cert.NotAfter}, nil
}

// Validate checks that every rate lies in [0, 1], that the rates that share
// a request do not add up to more than 1, and that Latency is not negative.
func (f Faults) Validate() error {
	var errs []error
	for _, r := range []struct {
		name string
		v    float64
	}{{"ErrorRate", f.ErrorRate}, {"AmbiguousRate", f.AmbiguousRate}, {"DropRate", f.DropRate}, {"HangRate", f.HangRate}, {"CutRate", f.CutRate}} {
		if r.v < 0 || r.v > 1 {
			errs = append(errs, fmt.Errorf("%s %v: must lie in [0, 1]", r.name, r.v))
		}
	}
	if sum := f.DropRate + f.ErrorRate + f.AmbiguousRate; sum > 1 {
		errs = append(errs, fmt.Errorf("DropRate+ErrorRate+AmbiguousRate %v: must not exceed 1", sum))
	}
	if f.Latency < 0 {
		//lint:ignore ST1005 the message starts with the field's name, as the others do
		errs = append(errs, fmt.Errorf("Latency %v: must not be negative", f.Latency))
	}
	return errors.Join(errs...)
}
