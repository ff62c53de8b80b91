// An SDK app imports this module in place of MobileSync: it brings MobileSync and SmartStore
// with it, and in a file that imports it alone, its `SyncState` (the SDK's class) takes the place
// of MobileSync's value, which stays reachable as `MobileSync.SyncState`. A file that imports
// MobileSync as well sees both and must name the one it means.
@_exported public import MobileSync
@_exported public import SmartStore
