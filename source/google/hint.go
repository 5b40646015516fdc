package google

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"path"
	"regexp"
	"strings"

	"github.com/orgsync/orgsync/source/internal/restapi"
)

// hint adds to err what to do and which key to check: for an endpoint
// that cannot be reached, a sign-in refused (domain-wide delegation, the
// subject, the key, IAM Credentials, the metadata server, the Security
// Token Service) and a call the Directory API refuses (by its reason: a
// scope, the API not enabled, API access off, the administrator, a group
// of another account, a field or query it does not know).
func (s *Source) hint(err error) error {
	advice := s.reachAdvice(err)
	if advice == "" {
		advice = s.signInAdvice(err)
	}
	var se *restapi.StatusError
	if advice == "" && errors.As(err, &se) {
		advice = s.apiAdvice(se)
	}
	return restapi.WithAdvice(err, advice)
}

// reachAdvice says what to check when an endpoint cannot be reached.
func (s *Source) reachAdvice(err error) string {
	var ce *restapi.ConnectError
	metadata := &metadataCredential{base: s.cfg.MetadataURL}
	if errors.As(err, &ce) && !s.cfg.Credentials.IsSet() && s.cfg.mode() != AuthKeyFile && strings.EqualFold("http://"+ce.Host, metadata.root()) {
		return "no metadata server answers here: without credentials, auth: " + s.cfg.mode() + " takes the credential of GKE workload identity, " +
			"Compute Engine or Cloud Run; elsewhere set credentials to an external account's configuration (workload identity federation)"
	}
	return restapi.ReachAdvice(err, restapi.URLKey{Key: "apiURL", URL: s.cfg.APIURL}, restapi.URLKey{Key: "tokenURL", URL: cmp.Or(s.cfg.TokenURL, DefaultTokenURL)},
		restapi.URLKey{Key: "iamURL", URL: s.cfg.IAMURL}, restapi.URLKey{Key: "metadataURL", URL: s.cfg.MetadataURL})
}

// delegation says where domain-wide delegation is granted, and by whom.
func (s *Source) delegation() string {
	client := "the service account's client ID " + s.clientID
	if s.cfg.mode() == AuthSignJwt {
		client = "the client ID (unique ID) of the service account " + cmp.Or(s.cfg.ServiceAccount, "it signs as")
	}
	return "a super administrator grants it in the Admin console (Security > Access and data control > API controls > " +
		"Manage Domain Wide Delegation) to " + client + " with the scopes " + strings.Join(Scopes, ",")
}

// signInAdvice says what to check when a sign-in is refused: by IAM
// Credentials (signJwt), by the token endpoint or the Security Token
// Service.
func (s *Source) signInAdvice(err error) string {
	var rpc *rpcError
	if errors.As(err, &rpc) {
		return s.iamAdvice(rpc)
	}
	code, desc := restapi.OAuthError(err)
	switch {
	case code == "unauthorized_client":
		return "domain-wide delegation of the directory scopes is missing: " + s.delegation() + " (it can take a while to apply)"
	case strings.Contains(desc, "Invalid email or User ID"):
		return "check subject (" + s.cfg.Subject + "): the administrator the service account acts for must be a user of the account"
	case strings.Contains(desc, "short-lived"):
		return "check this machine's clock: an assertion is valid for an hour from the time it is signed, and refused when dated ahead of Google's clock"
	case strings.Contains(err.Error(), "ID Token"), strings.Contains(err.Error(), "invalid_target"):
		return "the Security Token Service refused the external account's token: check the workload identity pool's provider " +
			"(its issuer and allowed audiences) against the credentials file's audience and the token its credential_source gives"
	case strings.Contains(desc, "Signature"), strings.Contains(desc, "account not found"):
		return "check credentials: the key file must be a current key of an existing service account (a deleted key or account is refused); create a new JSON key"
	case code != "":
		return "check credentials and tokenURL"
	}
	return ""
}

// iamAdvice says what to do when IAM Credentials refuses to sign.
func (s *Source) iamAdvice(e *rpcError) string {
	switch e.reason() {
	case "IAM_PERMISSION_DENIED":
		caller, member := s.caller()
		role := "the Service Account Token Creator role on " + e.Account
		if caller == "the service account "+e.Account {
			role = "the Service Account Token Creator role on itself"
		}
		return "grant " + caller + " " + role +
			" (gcloud iam service-accounts add-iam-policy-binding " + e.Account + " --role=roles/iam.serviceAccountTokenCreator --member=" + member + "), " +
			"and enable the IAM Service Account Credentials API (iamcredentials.googleapis.com) in its project"
	case "ACCESS_TOKEN_SCOPE_INSUFFICIENT":
		return "the ambient credential lacks the cloud-platform scope: give the VM or node pool the cloud-platform access scope"
	case "SERVICE_DISABLED":
		return "enable the IAM Service Account Credentials API (iamcredentials.googleapis.com) in the project"
	}
	return "check serviceAccount and iamURL"
}

// caller names who calls IAM Credentials (the ambient identity), and
// the --member of a gcloud policy binding for it: the metadata server's
// service account, the service account an external account
// impersonates, or the external account's federated principal.
func (s *Source) caller() (who, member string) {
	if !s.cfg.Credentials.IsSet() {
		return "the metadata server's service account (the VM's, or the one GKE workload identity maps the pod's Kubernetes service account to)",
			"serviceAccount:<its email: curl -H Metadata-Flavor:Google " + (&metadataCredential{base: s.cfg.MetadataURL}).root() + metadataAccount + "email>"
	}
	k, err := s.loadFile(typeExternalAccount, typeServiceAccount)
	switch {
	case err != nil:
		return "the ambient identity", "..."
	case k.Type == typeServiceAccount:
		return "the service account " + k.ClientEmail, "serviceAccount:" + k.ClientEmail
	}
	if sa, _ := (&externalCredential{file: k.external}).account(context.Background(), nil); sa != "" {
		return "the service account " + sa, "serviceAccount:" + sa
	}
	return "the external account's federated principal", "principal://iam.googleapis.com/<pool>/subject/<subject>"
}

// adminRoleScopes says how the token of auth: adminRole gets the
// directory scopes, which orgsync asks for.
func (s *Source) adminRoleScopes() string {
	if s.cfg.Credentials.IsSet() {
		return "the token must be the service account's: create the external account's configuration with --service-account " +
			"(service_account_impersonation_url), so that the token asked for carries the scopes " + strings.Join(Scopes, ",")
	}
	return "on Compute Engine the metadata server gives tokens with the VM's access scopes, whatever scopes are asked for: stop the VM and give it the scopes " +
		"(gcloud compute instances set-service-account <vm> --zone <zone> --service-account <its service account> --scopes " + CloudPlatformScope + "," + strings.Join(Scopes, ",") +
		"), then start it; GKE workload identity and Cloud Run give the scopes asked for"
}

// scopeFor is the scope of the call to path.
func scopeFor(path string) string {
	switch {
	case strings.HasSuffix(path, "/members"):
		return Scopes[2]
	case strings.Contains(path, "/groups"):
		return Scopes[1]
	}
	return Scopes[0]
}

// projectOf reads the project an accessNotConfigured message names.
var projectOf = regexp.MustCompile(`project (\S+?)[ .]`)

// apiAdvice says what to do when the Directory API refuses a call.
func (s *Source) apiAdvice(se *restapi.StatusError) string {
	switch se.Code {
	case "insufficientPermissions":
		if s.cfg.mode() == AuthAdminRole {
			return "the token lacks the scope " + scopeFor(se.Path) + ": " + s.adminRoleScopes()
		}
		return "the token lacks the scope " + scopeFor(se.Path) + ": " + s.delegation()
	case "accessNotConfigured":
		project := "of the service account"
		if m := projectOf.FindStringSubmatch(se.Message); m != nil {
			project = m[1]
		}
		return "enable the Admin SDK API (admin.googleapis.com) in the Google Cloud project " + project +
			" (the project that owns the service account or the credential): gcloud services enable admin.googleapis.com --project " + project + ", then wait a few minutes"
	case "domainCannotUseApis":
		return "API access is off for this Google Workspace account: a super administrator turns it on in the Admin console (Security > Access and data control > API controls)"
	case "backendError":
		return "Google answers 503 backendError to a page token older than an hour: a listing that takes that long cannot finish (raise rateLimit, narrow users.query); otherwise Google is unavailable: retry later"
	case "forbidden":
		return s.forbiddenAdvice(se)
	}
	return s.requestAdvice(se)
}

// forbiddenAdvice says why a call was refused: a group of another
// account, or a caller who is not an administrator.
func (s *Source) forbiddenAdvice(se *restapi.StatusError) string {
	admin := "check subject (" + s.cfg.Subject + "): it must be an administrator whose role reads users and groups (a super administrator, or a role with the Admin API privileges Users > Read and Groups > Read)"
	if s.cfg.mode() == AuthAdminRole {
		admin = "assign the service account an admin role whose privileges read users and groups (Admin console > Account > Admin roles > a role with Admin API privileges Users > Read and Groups > Read > Assign service accounts), and check customer (" + s.cfg.Customer + ")"
	}
	if strings.Contains(se.Path, "/groups/") && !strings.HasSuffix(se.Path, "/members") {
		return "the group " + path.Base(se.Path) + " may be of another Google Workspace account (Google answers 403, not 404, for a group outside the account's domains): check the mapping rule; if it is this account's, " + admin
	}
	return admin
}

// requestAdvice says what to check when the Directory API refuses a
// request as it is.
func (s *Source) requestAdvice(se *restapi.StatusError) string {
	switch {
	case se.Code == "invalidParameter" && strings.Contains(se.Message, "field selection"):
		return "check the fields named in users' templates and extraAttributes: Google's user fields are such as primaryEmail, name.givenName, orgUnitPath, addresses.countryCode and customSchemas.<schema>.<field>"
	case se.Status == http.StatusBadRequest && se.Message == "Bad Request":
		return "check customer (" + s.cfg.Customer + ") and domain"
	case se.Status == http.StatusBadRequest:
		return "check users.query, groups.query and the custom schemas (customSchemas.<schema>) named in the templates and extraAttributes"
	case se.Status == http.StatusUnauthorized:
		return "the Directory API refused the access token: check that apiURL and tokenURL belong together"
	case se.Status == http.StatusNotFound && !strings.Contains(se.Path, "/groups/"):
		return "check apiURL (" + s.cfg.APIURL + "): it is the Admin SDK's root, such as " + DefaultAPIURL + ", without a path"
	}
	return ""
}
