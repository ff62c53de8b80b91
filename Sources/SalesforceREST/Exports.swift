// The wire vocabulary (error items, composite subrequests, Salesforce times, HTTP dates) is part
// of this module's API: an app that imports SalesforceREST sees it without a second import.
@_exported public import SalesforceWire
