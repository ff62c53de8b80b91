// swift-format-ignore-file
// (Apple's names and declarations, as its SDKs spell them: see ../README.md.)

// Combine: OpenCombine mirrors its API (and its schedulers on RunLoop and DispatchQueue).
@_exported public import OpenCombine
@_exported public import OpenCombineDispatch
@_exported public import OpenCombineFoundation
