// What a test written with this module touches is part of its API: the org (`LocalForce`,
// `FaultInjection`, `SchemaFile`) and the client it hands out (`RestClient`, `RestError`, and
// through it `JSONValue`). A test that imports LocalForceTesting sees them without more imports.
@_exported public import LocalForce
@_exported public import SalesforceREST
