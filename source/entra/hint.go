package entra

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"golang.org/x/oauth2"

	"github.com/orgsync/orgsync/source/internal/restapi"
)

// hint adds to err what to do and which key to check: for an endpoint
// that cannot be reached, a sign-in refused (by the Microsoft identity
// platform's AADSTS code) and a call Microsoft Graph refuses.
func (s *Source) hint(err error) error {
	advice := cmp.Or(s.reachAdvice(err), s.tokenFileAdvice(err))
	if advice == "" {
		code, desc := restapi.OAuthError(err)
		advice = cmp.Or(signInAdvice(desc), s.identityAdvice(err, code, desc))
	}
	var se *restapi.StatusError
	if advice == "" && errors.As(err, &se) {
		advice = graphAdvice(se, s.cfg.GraphURL)
		if se.Status == http.StatusForbidden && s.cfg.mode() == AuthManagedIdentity {
			advice = strings.Replace(advice, "grant the app registration", "grant the managed identity's service principal", 1) +
				"; the portal cannot grant application permissions to a managed identity: use PowerShell (New-MgServicePrincipalAppRoleAssignment) or the CLI (az rest, appRoleAssignments), as docs/sources.md shows"
		}
	}
	return restapi.WithAdvice(err, advice)
}

// reachAdvice says what to check when an endpoint cannot be reached: the
// keys naming it, or where a managed identity's endpoint is.
func (s *Source) reachAdvice(err error) string {
	var ce *restapi.ConnectError
	if errors.As(err, &ce) && s.cfg.mode() == AuthManagedIdentity && strings.Contains(err.Error(), "managed identity") {
		return noIdentityEndpoint
	}
	return restapi.ReachAdvice(err, restapi.URLKey{Key: "loginURL", URL: s.cfg.LoginURL}, restapi.URLKey{Key: "graphURL", URL: s.cfg.GraphURL},
		restapi.URLKey{Key: "identityEndpoint", URL: s.cfg.IdentityEndpoint})
}

// tokenFileAdvice says what to check when the federated token file cannot
// be read (workload identity): on AKS, what makes the webhook mount it.
func (s *Source) tokenFileAdvice(err error) string {
	var ae *restapi.AssertionError
	if s.cfg.mode() != AuthWorkloadIdentity || !errors.As(err, &ae) {
		return ""
	}
	return "check federatedTokenFile (" + s.cfg.FederatedTokenFile + "): on AKS the workload identity webhook mounts the token, and sets " + EnvFederatedTokenFile +
		", only in a pod labelled azure.workload.identity/use: \"true\" whose service account is annotated azure.workload.identity/client-id " +
		"(pods created before the label and the annotation must be created again); elsewhere, the file of a token the app's federated credential trusts"
}

// noIdentityEndpoint is the advice when no managed identity endpoint
// answers: nothing listens there, or something else does (another
// cloud's metadata service, a proxy).
const noIdentityEndpoint = "no managed identity endpoint answers here: auth: managedIdentity works on an Azure VM, scale set or AKS node with a managed identity (the instance metadata service), " +
	"or in App Service or Container Apps with an identity (IDENTITY_ENDPOINT and IDENTITY_HEADER); elsewhere use workloadIdentity, certificate or clientSecret"

// identityAdvice says what to check when a managed identity endpoint
// refuses the token request (err, with its OAuth error code and
// description: none when what answered is not such an endpoint).
func (s *Source) identityAdvice(err error, code, desc string) string {
	var re *oauth2.RetrieveError
	if s.cfg.mode() != AuthManagedIdentity || !errors.As(err, &re) {
		return ""
	}
	status := 0
	if re.Response != nil {
		status = re.Response.StatusCode
	}
	switch {
	case status == http.StatusUnauthorized && s.identityHeaderSet():
		return "the identity endpoint refused X-IDENTITY-HEADER: " + EnvIdentityHeader + " must be the value App Service or Container Apps sets in this process's environment " +
			"beside " + EnvIdentityEndpoint + " (it changes when the app restarts: do not copy it into a file or the configuration)"
	case status == http.StatusUnauthorized && !s.identityHeaderSet():
		return "the endpoint refused a request of the instance metadata service's protocol: if identityEndpoint is App Service's or Container Apps' (" + EnvIdentityEndpoint +
			"), " + EnvIdentityHeader + " must be set in the environment; " + noIdentityEndpoint
	case (status == http.StatusNotFound || status == http.StatusGone) && !s.identityHeaderSet():
		return fmt.Sprintf("the instance metadata service answered %d on every attempt (it does while it updates, and is back within 70 seconds): "+
			"run again later; if it persists, check that a managed identity is assigned to this VM or scale set", status)
	case code == "" && desc == "":
		return noIdentityEndpoint
	case strings.Contains(desc, "Multiple user assigned identities"):
		return "set clientId to the client id of the user-assigned managed identity to sign in as"
	case strings.Contains(desc, "Identity not found"):
		return "check clientId (" + cmp.Or(s.cfg.ClientID, "none: the system-assigned identity") + "): it must name a managed identity assigned to this VM or app"
	}
	return ""
}

// identityHeaderSet reports whether the identity endpoint is spoken to
// with App Service's protocol (IDENTITY_HEADER is set).
func (s *Source) identityHeaderSet() bool { return os.Getenv(EnvIdentityHeader) != "" }

// signInAdvice says what to check for the AADSTS code that begins an
// error description of the token endpoint.
func signInAdvice(desc string) string {
	code, _, _ := strings.Cut(desc, ":")
	switch code {
	case "AADSTS7000215", "AADSTS7000222":
		return "check clientSecret: it must hold the Value of a client secret of the app registration (not its Secret ID) that has not expired"
	case "AADSTS90002", "AADSTS900023":
		return "check tenantId: the Directory (tenant) ID of the app registration's tenant, or one of the tenant's verified domains"
	case "AADSTS700016":
		return "check clientId: the Application (client) ID of an app registration in this tenant"
	case "AADSTS700027":
		return "check certificate and privateKey: the certificate must be uploaded to the app registration (Certificates & secrets) and the key must be its own"
	case "AADSTS1002012", "AADSTS500011":
		return "check graphURL: the token is asked for <graphURL>/.default"
	case "AADSTS700211", "AADSTS700212", "AADSTS700213":
		return "the app registration has no federated credential matching the token's issuer, subject and audience (all three compared exactly): " +
			"add one (Certificates & secrets > Federated credentials > Kubernetes accessing Azure resources) with the cluster's OIDC issuer URL (az aks show --query oidcIssuerProfile.issuerUrl), " +
			"the subject system:serviceaccount:<namespace>:<service account> and the audience api://AzureADTokenExchange"
	case "AADSTS700024":
		return "the federated token has expired: the file must be one that Kubernetes renews (a projected service account token, as AKS workload identity mounts), not a copy"
	case "AADSTS50027":
		return "the federated token is not a token Entra ID can check: federatedTokenFile must be the projected service account token of the pod"
	}
	return ""
}

// graphAdvice says what to do when Graph refuses a call: the application
// permission it needs, the token, or an address that is not Graph's root.
func graphAdvice(se *restapi.StatusError, graphURL string) string {
	switch {
	case se.Status == http.StatusNotFound && !strings.HasPrefix(se.Path, "/v1.0/groups/"),
		se.Status == http.StatusBadRequest && strings.Contains(se.Message, "segment"):
		return "check graphURL (" + graphURL + "): it is Microsoft Graph's root, such as https://graph.microsoft.com, without a path"
	}
	switch se.Status {
	case http.StatusForbidden:
		perm := "User.Read.All"
		if strings.Contains(se.Path, "/groups") {
			perm = "GroupMember.Read.All"
		}
		advice := "grant the app registration the Microsoft Graph application permission " + perm +
			" (the source needs User.Read.All and GroupMember.Read.All), with admin consent"
		if strings.HasSuffix(se.Path, "/members") || strings.HasSuffix(se.Path, "/transitiveMembers") {
			advice += "; when the group's membership is hidden (a Microsoft 365 group created with hidden membership), also Member.Read.Hidden"
		}
		return advice
	case http.StatusUnauthorized:
		return "Microsoft Graph refused the access token: check that loginURL and graphURL are of the same cloud"
	}
	return ""
}
