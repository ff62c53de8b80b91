// Where Apple's Combine is absent, OpenCombine stands in, re-exported with its `RunLoop` and
// `DispatchQueue` schedulers: an SDK app's `publisher(for:)` … `.receive(on: RunLoop.main)`
// compiles unchanged, importing this module instead of Combine.
#if !canImport(Combine)
    @_exported public import OpenCombine
    @_exported public import OpenCombineDispatch
    @_exported public import OpenCombineFoundation
#endif
