// swift-tools-version:6.1
import Foundation
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "msync",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "SmartStore", targets: ["SmartStore"]),
        .library(name: "SOQL", targets: ["SOQL"]),
        .library(name: "FastJSON", targets: ["FastJSON"]),
        .library(name: "SalesforceWire", targets: ["SalesforceWire"]),
        .library(name: "SalesforceREST", targets: ["SalesforceREST"]),
        .library(name: "MobileSync", targets: ["MobileSync"]),
        .library(name: "LocalForce", targets: ["LocalForce"]),
        .library(name: "LocalForcePostgres", targets: ["LocalForcePostgres"]),
        .library(name: "LocalForceHTTP", targets: ["LocalForceHTTP"]),
        .library(name: "LocalForceTesting", targets: ["LocalForceTesting"]),
        .executable(name: "msync", targets: ["msync"]),
        .executable(name: "msync-bench", targets: ["msync-bench"]),
    ],
    dependencies: [
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
    ],
    targets: [
        .target(
            name: "FastJSON",
            swiftSettings: strictSettings
        ),
        .target(
            name: "Locking",
            swiftSettings: strictSettings
        ),
        .target(
            name: "SalesforceWire",
            dependencies: ["FastJSON"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "EncryptedSQLite",
            dependencies: [
                "Locking",
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SmartStore",
            dependencies: [
                "FastJSON",
                "Locking",
                "EncryptedSQLite",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                // Combine on Apple platforms; the same API elsewhere.
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SOQL",
            swiftSettings: strictSettings
        ),
        .target(
            name: "LocalForce",
            dependencies: [
                "SOQL",
                "FastJSON",
                "Locking",
                "SalesforceWire",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
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
                "SalesforceWire",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "LocalForceTesting",
            dependencies: ["LocalForce", "LocalForceHTTP", "SalesforceREST", "SalesforceWire"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SalesforceREST",
            dependencies: [
                "FastJSON", "Locking", "SalesforceWire",
                // OAuth: PKCE challenges (Crypto) and RS256 JWT assertions (CryptoExtras).
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "MobileSync",
            dependencies: [
                "SmartStore", "SalesforceREST", "SalesforceWire", "SOQL", "FastJSON", "Locking",
                // Combine on Apple platforms; the same API elsewhere.
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strictSettings
        ),
        // The SDK template's accounts list, ported (an example: not a product).
        .target(
            name: "AccountsListExample",
            dependencies: [
                "MobileSync", "SmartStore",
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ],
            path: "Examples/AccountsList",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "msync",
            dependencies: [
                "SmartStore",
                "LocalForce",
                "LocalForceHTTP",
                "LocalForcePostgres",
                "Locking",
                "MobileSync",
                "SalesforceREST",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // msync login's loopback callback.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // msync sync's Ctrl-C and SIGTERM.
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "msync-bench",
            dependencies: [
                "SmartStore",
                "EncryptedSQLite",
                "LocalForce",
                "LocalForceHTTP",
                "LocalForcePostgres",
                "MobileSync",
                "SalesforceREST",
                "FastJSON",
                "Locking",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "TestSupport",
            path: "Tests/TestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LocalForceTests",
            dependencies: [
                "LocalForce", "LocalForceHTTP", "LocalForcePostgres", "SOQL", "SalesforceWire", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MobileSyncTests",
            dependencies: [
                "MobileSync", "SmartStore", "SalesforceREST", "SalesforceWire", "LocalForce", "LocalForceHTTP", "LocalForceTesting",
                "FastJSON", "TestSupport", "Locking", "AccountsListExample",
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FastJSONTests",
            dependencies: ["FastJSON"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SOQLTests",
            dependencies: ["SOQL"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SalesforceWireTests",
            dependencies: ["SalesforceWire", "FastJSON"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LocalForceTestingTests",
            dependencies: ["LocalForceTesting", "LocalForce", "SalesforceREST", "FastJSON", "MobileSync", "SmartStore"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SalesforceRESTTests",
            dependencies: [
                "SalesforceREST", "SalesforceWire", "FastJSON", "LocalForce", "LocalForceHTTP", "Locking", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LockingTests",
            dependencies: ["Locking"],
            swiftSettings: strictSettings
        ),
        // The process the encrypted-store crash tests kill in the middle of a transaction.
        .executableTarget(
            name: "encrypted-store-writer",
            dependencies: ["SmartStore", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Tests/EncryptedStoreWriter",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SmartStoreTests",
            dependencies: [
                "SmartStore", "EncryptedSQLite", "TestSupport", "FastJSON", "Locking", "encrypted-store-writer",
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            exclude: ["Encryption/sqlcipher_check.py"],
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
                "FastJSON", "SOQL", "SmartStore", "LocalForce", .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Fuzz/Sources/msync-fuzz",
            swiftSettings: strictSettings
        )
    ]
    package.products += [.executable(name: "msync-fuzz", targets: ["msync-fuzz"])]
}
