// Entries are `JSONValue`s: importing SmartStore is enough to use them.
@_exported public import FastJSON
