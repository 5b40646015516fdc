package ldap

import "errors"

// gssapiContext is the part of a GSSAPI client the SASL exchange uses.
type gssapiContext interface {
	InitSecContext(target string, token []byte) ([]byte, bool, error)
	NegotiateSaslAuth(token []byte, authzid string) ([]byte, error)
}

// gssapiExchange establishes the security context with the server
// (mutual authentication included) and answers its security-layer offer.
func gssapiExchange(c *wireConn, cl gssapiContext, spn string) error {
	token, _, err := cl.InitSecContext(spn, nil)
	if err != nil {
		return err
	}
	reply, done, err := c.saslBind("GSSAPI", token)
	for err == nil && !done && len(reply) > 0 && !isWrapToken(reply) {
		if token, _, err = cl.InitSecContext(spn, reply); err != nil {
			return err
		}
		reply, done, err = c.saslBind("GSSAPI", token)
	}
	if err != nil {
		return err
	}
	if done {
		return errors.New("the server ended the Kerberos bind before negotiating a security layer")
	}
	answer, err := cl.NegotiateSaslAuth(reply, "")
	if err != nil {
		return err
	}
	if _, done, err = c.saslBind("GSSAPI", answer); err != nil {
		return err
	} else if !done {
		return errors.New("the server did not complete the Kerberos bind")
	}
	return nil
}
