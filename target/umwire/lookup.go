package umwire

// DomainVendorID is the value of endpoint 3's domain query parameter that
// selects independent IDs. It is matched exactly (the specification writes
// it so); any other value is a domain name.
const DomainVendorID = "VendorID"
