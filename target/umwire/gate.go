package umwire

// Form fields and values of the token endpoints (contract 1).
const (
	FormClientID           = "client_id"
	FormClientSecret       = "client_secret"
	FormJWTToken           = "jwt_token"
	FormGrantType          = "grant_type"
	FormScope              = "scope"
	GrantClientCredentials = "client_credentials"
	TokenTypeBearer        = "bearer"
	// TokenErrInvalidClient is the error of a 400 from a token endpoint for
	// bad credentials or a bad JWT.
	TokenErrInvalidClient = "invalid_client"
	// TokenErrInvalidRequest is the error of a 400 for an unreadable form.
	TokenErrInvalidRequest = "invalid_request"
	// TokenErrUnsupportedGrant is the error of a 400 for a grant_type other
	// than client_credentials.
	TokenErrUnsupportedGrant = "unsupported_grant_type"
)

// JWTAudiencePath and JWTScopePath are appended to the auth base URL to
// form the JWT exchange's aud claim ("{auth_base}/c/{client_id}") and the
// name of its meta-scope claim ("{auth_base}/s/ent_user_sdk").
const (
	JWTAudiencePath = "/c/"
	JWTScopePath    = "/s/"
)
