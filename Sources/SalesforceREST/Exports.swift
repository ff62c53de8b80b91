// The wire vocabulary (error items, composite subrequests, Salesforce times, HTTP dates) and the
// JSON value every call takes and returns are part of this module's API: an app that imports
// SalesforceREST sees them without a second import.
@_exported public import FastJSON
@_exported public import SalesforceWire
