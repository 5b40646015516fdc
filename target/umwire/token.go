package umwire

// Token endpoints (contract 1), relative to the auth base URL.
const (
	PathJWTExchange       = "/ims/exchange/jwt"
	PathClientCredentials = "/ims/token/v3"
	// ClaimEntUserSDK is appended to "{auth_base}/s/" to form the JWT's
	// meta-scope claim, whose value is true.
	ClaimEntUserSDK = "ent_user_sdk"
)

// TokenResponse is the 200 body of both token endpoints.
type TokenResponse struct {
	TokenType   string `json:"token_type"`
	AccessToken string `json:"access_token"`
	ExpiresIn   int64  `json:"expires_in"` // seconds
}

// TokenError is the 400 body of the token endpoints.
type TokenError struct {
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

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
