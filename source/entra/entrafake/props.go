package entrafake

import "strings"

// userProperties are the properties of Microsoft Graph v1.0's user
// resource, each with whether a listing (GET /users) may $select it: the
// others are returned only when one user is read (GET /users/{id}), and
// naming one in a listing's $select fails the whole listing with 400, as
// does a name Graph does not know. Directory extensions (extension_...)
// may be selected too.
var userProperties = map[string]bool{
	"accountEnabled": true, "ageGroup": true, "assignedLicenses": true, "assignedPlans": true, "authorizationInfo": true,
	"businessPhones": true, "city": true, "companyName": true, "consentProvidedForMinor": true, "country": true,
	"createdDateTime": true, "creationType": true, "customSecurityAttributes": true, "deletedDateTime": true,
	"department": true, "displayName": true, "employeeHireDate": true, "employeeId": true, "employeeLeaveDateTime": true,
	"employeeOrgData": true, "employeeType": true, "externalUserState": true, "externalUserStateChangeDateTime": true,
	"faxNumber": true, "givenName": true, "id": true, "identities": true, "imAddresses": true, "isManagementRestricted": true,
	"isResourceAccount": true, "jobTitle": true, "lastPasswordChangeDateTime": true, "legalAgeGroupClassification": true,
	"licenseAssignmentStates": true, "mail": true, "mailNickname": true, "mobilePhone": true, "officeLocation": true,
	"onPremisesDistinguishedName": true, "onPremisesDomainName": true, "onPremisesExtensionAttributes": true,
	"onPremisesImmutableId": true, "onPremisesLastSyncDateTime": true, "onPremisesProvisioningErrors": true,
	"onPremisesSamAccountName": true, "onPremisesSecurityIdentifier": true, "onPremisesSyncEnabled": true,
	"onPremisesUserPrincipalName": true, "otherMails": true, "passwordPolicies": true, "passwordProfile": true,
	"postalCode": true, "preferredDataLocation": true, "preferredLanguage": true, "provisionedPlans": true,
	"proxyAddresses": true, "securityIdentifier": true, "serviceProvisioningErrors": true, "showInAddressList": true,
	"signInSessionsValidFromDateTime": true, "state": true, "streetAddress": true, "surname": true, "usageLocation": true,
	"userPrincipalName": true, "userType": true,
	// Returned only for a single user.
	"aboutMe": false, "birthday": false, "hireDate": false, "interests": false, "mailboxSettings": false, "mySite": false,
	"pastProjects": false, "preferredName": false, "responsibilities": false, "schools": false, "skills": false,
}

// badUserSelect returns Graph's error message for the first property of a
// user listing's $select that it refuses, "" when it takes them all.
func badUserSelect(sel string) string {
	for _, p := range strings.Split(sel, ",") {
		p = strings.TrimSpace(p)
		listable, known := userProperties[p]
		switch {
		case p == "" || strings.HasPrefix(p, "extension_") || listable:
		case known:
			return "The property '" + p + "' is only returned for a single user: read it with GET /users/{id}, not in a listing."
		default:
			return "Could not find a property named '" + p + "' on type 'microsoft.graph.user'."
		}
	}
	return ""
}
