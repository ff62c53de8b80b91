// swift-tools-version:6.1
import Foundation
import PackageDescription

// The server side: LocalForce and its HTTP and PostgreSQL layers, LocalForceTesting for your
// tests, the msync command line and the benchmarks, and every test that needs a server. It
// depends on the package at the repository's root (the one apps use) by path, so an app that
// depends on the repository resolves none of NIO, Hummingbird, PostgresNIO or the certificates.

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "msync-server",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "LocalForce", targets: ["LocalForce"]),
        .library(name: "LocalForcePostgres", targets: ["LocalForcePostgres"]),
        .library(name: "LocalForceHTTP", targets: ["LocalForceHTTP"]),
        .library(name: "LocalForceTesting", targets: ["LocalForceTesting"]),
        .executable(name: "msync", targets: ["msync"]),
        .executable(name: "msync-bench", targets: ["msync-bench"]),
    ],
    dependencies: [
        .package(name: "msync", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        .target(
            name: "LocalForce",
            dependencies: [
                .product(name: "SOQL", package: "msync"),
                .product(name: "FastJSON", package: "msync"),
                .product(name: "SalesforceWire", package: "msync"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // OAuth: PKCE and token hashes (Crypto), JWT signatures (CryptoExtras), certificates (X509).
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "LocalForcePostgres",
            dependencies: [
                "LocalForce",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "LocalForceHTTP",
            dependencies: [
                "LocalForce",
                .product(name: "SalesforceWire", package: "msync"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // Parse errors (a head too large) answered in LocalForce's error shape.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // HTTP/1.0 requests without Host (HTTP10Host sits before this conversion).
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // gzip and deflate request and response bodies (zlib).
                .product(name: "CompressNIO", package: "compress-nio"),
                // HTTPS: the TLS channel, and the self-signed certificates it can make.
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "LocalForceTesting",
            dependencies: [
                "LocalForce", "LocalForceHTTP",
                .product(name: "SalesforceREST", package: "msync"),
                .product(name: "SalesforceWire", package: "msync"),
                // The HTTPS transport's client: a connection trusting the org's own authority.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        // The SDK template's accounts list, ported (an example: not a product).
        .target(
            name: "AccountsListExample",
            dependencies: [
                .product(name: "MobileSync", package: "msync"),
                .product(name: "MobileSyncSDKCompat", package: "msync"),
                .product(name: "SmartStore", package: "msync"),
                .product(name: "SalesforceREST", package: "msync"),
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ],
            path: "Examples/AccountsList",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "msync",
            dependencies: [
                "LocalForce",
                "LocalForceHTTP",
                "LocalForcePostgres",
                // --ca-file: TrustingTransport.
                "LocalForceTesting",
                .product(name: "SmartStore", package: "msync"),
                .product(name: "MobileSync", package: "msync"),
                .product(name: "SalesforceREST", package: "msync"),
                .product(name: "SOQL", package: "msync"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // msync login's loopback callback.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // msync sync's Ctrl-C and SIGTERM.
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "msync-bench",
            dependencies: [
                "LocalForce",
                "LocalForceHTTP",
                "LocalForcePostgres",
                // --ca-file: TrustingTransport.
                "LocalForceTesting",
                .product(name: "SmartStore", package: "msync"),
                .product(name: "MobileSync", package: "msync"),
                .product(name: "SalesforceREST", package: "msync"),
                .product(name: "FastJSON", package: "msync"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // Child processes for the tests: the root package's target, through a symbolic link.
        .target(
            name: "TestSupport",
            dependencies: ["TestLocking"],
            path: "Tests/TestSupport",
            swiftSettings: strictSettings
        ),
        // The root package's `Locked` (package-internal there), through a symbolic link: the one
        // lock type for the tests' shared state too.
        .target(
            name: "TestLocking",
            path: "Tests/TestLocking",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LocalForceTests",
            dependencies: [
                "msync", "LocalForce", "LocalForceHTTP", "LocalForcePostgres", "TestSupport", "TestLocking",
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "SOQL", package: "msync"),
                .product(name: "SalesforceWire", package: "msync"),
                .product(name: "FastJSON", package: "msync"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        // The SDK template's model as an app runs it, its main thread running the run loop.
        .executableTarget(
            name: "sdk-template-app",
            dependencies: [
                "LocalForceTesting", "TestLocking",
                .product(name: "MobileSync", package: "msync"),
                .product(name: "MobileSyncSDKCompat", package: "msync"),
                .product(name: "SmartStore", package: "msync"),
                .product(name: "SalesforceREST", package: "msync"),
            ],
            path: "Tests/SDKTemplateApp",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MobileSyncTests",
            dependencies: [
                "msync", "LocalForce", "LocalForceHTTP", "LocalForceTesting", "TestSupport", "TestLocking", "AccountsListExample",
                "sdk-template-app",
                .product(name: "MobileSync", package: "msync"),
                .product(name: "MobileSyncSDKCompat", package: "msync"),
                .product(name: "SmartStore", package: "msync"),
                .product(name: "SalesforceStreaming", package: "msync"),
                .product(name: "SalesforceREST", package: "msync"),
                .product(name: "SalesforceWire", package: "msync"),
                .product(name: "FastJSON", package: "msync"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        // The msync command line through its binary (built with the tests: a dependency here).
        .testTarget(
            name: "CommandLineTests",
            dependencies: [
                "msync", "LocalForce", "LocalForceHTTP", "LocalForceTesting", "TestSupport", "TestLocking",
                .product(name: "MobileSync", package: "msync"),
                .product(name: "SmartStore", package: "msync"),
                .product(name: "SalesforceREST", package: "msync"),
                .product(name: "FastJSON", package: "msync"),
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        // The documentation's examples that are tests (the README's and LocalForceTesting's),
        // run as written; scripts/checks/snippets.py checks the documents show them unchanged.
        .testTarget(
            name: "DocumentationTests",
            dependencies: [
                "LocalForceTesting", "LocalForceHTTP",
                .product(name: "MobileSync", package: "msync"),
                .product(name: "SmartStore", package: "msync"),
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LocalForceTestingTests",
            dependencies: [
                "LocalForceTesting", "LocalForce", "TestSupport",
                .product(name: "SalesforceREST", package: "msync"),
                .product(name: "FastJSON", package: "msync"),
                .product(name: "MobileSync", package: "msync"),
                .product(name: "SmartStore", package: "msync"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SalesforceRESTTests",
            dependencies: [
                "LocalForce", "LocalForceHTTP", "TestSupport",
                .product(name: "SalesforceREST", package: "msync"),
                .product(name: "SalesforceWire", package: "msync"),
                .product(name: "FastJSON", package: "msync"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Fuzz targets (libFuzzer), only when scripts/fuzz.sh builds them: MSYNC_FUZZ=1 with
// --sanitize fuzzer in its own scratch path, so the ordinary build never sees them.
if ProcessInfo.processInfo.environment["MSYNC_FUZZ"] == "1" {
    package.targets += [
        .executableTarget(
            name: "msync-fuzz",
            dependencies: [
                "LocalForce",
                .product(name: "FastJSON", package: "msync"),
                .product(name: "SOQL", package: "msync"),
                .product(name: "SmartStore", package: "msync"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Fuzz/Sources/msync-fuzz",
            swiftSettings: strictSettings
        )
    ]
    package.products += [.executable(name: "msync-fuzz", targets: ["msync-fuzz"])]
}
