// swift-format-ignore-file
// (Apple's names and declarations, as its SDKs spell them: see ../README.md.)

public import Dispatch
// Darwin: the C library (Glibc's declarations stand for the POSIX part) and Darwin's own.
@_exported public import Glibc

/// `fcntl` command: flush to the drive's permanent storage (sys/fcntl.h).
public var F_FULLFSYNC: Int32 { 51 }
/// `fcntl` command: a write barrier (sys/fcntl.h).
public var F_BARRIERFSYNC: Int32 { 85 }

// notify.h: Darwin notifications, between processes.
public typealias notify_handler_t = @convention(block) (Int32) -> Void
public func notify_post(_ name: UnsafePointer<CChar>!) -> UInt32 { fatalError() }
public func notify_register_dispatch(
    _ name: UnsafePointer<CChar>!, _ out_token: UnsafeMutablePointer<Int32>!, _ queue: DispatchQueue!, _ handler: notify_handler_t!
) -> UInt32 { fatalError() }
public func notify_cancel(_ token: Int32) -> UInt32 { fatalError() }

/// MacTypes.h: the status Apple's C frameworks return.
public typealias OSStatus = Int32

/// sys/sysctl.h: a kernel value by name (`hw.memsize`, `machdep.cpu.brand_string`).
public func sysctlbyname(
    _ name: UnsafePointer<CChar>!, _ oldp: UnsafeMutableRawPointer!, _ oldlenp: UnsafeMutablePointer<Int>!,
    _ newp: UnsafeMutableRawPointer!, _ newlen: Int
) -> Int32 { fatalError() }

// sys/socket.h: plain Int32 constants in Darwin (an enum, `__socket_type`, in Glibc). Glibc's
// reach the checked code through Foundation too, so the check spells these `Darwin.SOCK_STREAM`
// in the files that import Darwin (DARWIN_TYPED in apple_typecheck.py).
public var SOCK_STREAM: Int32 { 1 }
public var SOCK_DGRAM: Int32 { 2 }
public var SOCK_RAW: Int32 { 3 }
