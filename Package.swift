// swift-tools-version:6.1
import Foundation
import PackageDescription

// The package apps depend on: the store, the sync engine, the REST client and what they share.
// It resolves GRDB, swift-crypto (with swift-asn1) and OpenCombine (used on Linux only), and
// nothing else. LocalForce, the msync command line, the benchmarks and the tests that need a
// server are the package in Server/, which depends on this one by path.

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
        .library(name: "SalesforceStreaming", targets: ["SalesforceStreaming"]),
        .library(name: "MobileSync", targets: ["MobileSync"]),
        .library(name: "MobileSyncSDKCompat", targets: ["MobileSyncSDKCompat"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
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
        // The Keychain (Apple platforms; empty elsewhere): one generic password, for SmartStore's
        // store keys and SalesforceREST's credentials.
        .target(
            name: "Keychain",
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
                "Keychain",
                "EncryptedSQLite",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                // AES-GCM for the key-value store.
                .product(name: "Crypto", package: "swift-crypto"),
                // Combine on Apple platforms; the same API elsewhere, with its RunLoop and
                // DispatchQueue schedulers (re-exported, so SDK code's `.receive(on:)` compiles).
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
                .product(name: "OpenCombineDispatch", package: "OpenCombine", condition: .when(platforms: [.linux])),
                .product(name: "OpenCombineFoundation", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ],
            // Its privacy manifest: stat/fstat (file kinds, the lock file) are required-reason APIs.
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SOQL",
            swiftSettings: strictSettings
        ),
        .target(
            name: "SalesforceREST",
            dependencies: [
                "FastJSON", "Keychain", "Locking", "SalesforceWire",
                // OAuth: PKCE challenges (Crypto) and RS256 JWT assertions (CryptoExtras).
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            // Its privacy manifest: stat (the credential file's mode) is a required-reason API.
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SalesforceStreaming",
            dependencies: ["FastJSON", "SalesforceREST"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "MobileSync",
            dependencies: [
                "SmartStore", "SalesforceREST", "SalesforceStreaming", "SalesforceWire", "SOQL", "FastJSON", "Locking",
                // Combine on Apple platforms; the same API elsewhere, with its RunLoop and
                // DispatchQueue schedulers (re-exported, so SDK code's `.receive(on:)` compiles).
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
                .product(name: "OpenCombineDispatch", package: "OpenCombine", condition: .when(platforms: [.linux])),
                .product(name: "OpenCombineFoundation", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strictSettings
        ),
        // Child processes and a seeded generator for the tests (also the Server package's, through a symbolic link).
        // The Mobile SDK's spellings over SmartStore and MobileSync, for apps ported from it.
        .target(
            name: "MobileSyncSDKCompat",
            dependencies: [
                "SmartStore", "MobileSync", "SalesforceREST", "FastJSON", "Locking",
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "TestSupport",
            dependencies: ["Locking"],
            path: "Tests/TestSupport",
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
            dependencies: ["SalesforceWire", "FastJSON", "TestSupport"],
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
            name: "MobileSyncSDKCompatTests",
            dependencies: ["MobileSyncSDKCompat", "SmartStore", "MobileSync", "SalesforceREST", "FastJSON"],
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

// The DocC plugin, only when scripts/test.sh builds the catalogs (MSYNC_DOCS=1), so that an app
// depending on this package does not resolve it.
if ProcessInfo.processInfo.environment["MSYNC_DOCS"] == "1" {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
