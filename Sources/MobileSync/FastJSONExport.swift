// Records, targets and sync states are `JSONValue`s: importing MobileSync is enough to use them.
@_exported public import FastJSON
