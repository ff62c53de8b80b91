import Foundation
import SalesforceREST
import TestSupport
import Testing

/// A login that cannot work says so at once, with what to do.
@Suite struct LoginFailureTests {
    /// A saved login whose refresh token the org no longer knows (LocalForce restarted, the
    /// token revoked elsewhere) ends query and sync with one line naming msync login.
    @Test func aSavedLoginTheOrgForgotSaysToLogInAgain() async throws {
        let world = try await LoginCommandTests.World()
        defer { Task { await world.stop() } }
        let url = world.server.baseURL
        let saved = FileCredentialStore(directory: world.folder.appendingPathComponent("config/msync/credentials"))
        try saved.save(
            OAuthCredentials(accessToken: "forgotten", refreshToken: "forgotten-too", instanceURL: url, loginURL: url, clientId: "msync"),
            account: "default")
        let advice = "the saved login \"default\" was refused and could not be renewed ("
        let (queryStatus, query) = try await world.run(["query", "--org", "SELECT Id FROM Account"])
        #expect(queryStatus == 1 && query.contains(advice) && query.contains("invalid_grant"), "\(query)")
        #expect(query.hasSuffix("): log in again with msync login\n") && !query.contains("Usage:"), "\(query)")
        try Data(#"{"soups":[{"soupName":"accounts","indexes":[{"path":"Id","type":"string"}]}]}"#.utf8)
            .write(to: world.folder.appendingPathComponent("userstore.json"))
        try Data(
            #"{"syncs":[{"syncName":"accounts","syncType":"syncUp","soupName":"accounts","target":{},"options":{"fieldlist":["Name"],"mergeMode":"OVERWRITE"}}]}"#
                .utf8
        ).write(to: world.folder.appendingPathComponent("usersyncs.json"))
        // A sync up with nothing to send asks the org first: it does not report DONE.
        let (syncStatus, sync) = try await world.run([
            "sync", "--store", world.folder.appendingPathComponent("store.sqlite").path, "--store-config",
            world.folder.appendingPathComponent("userstore.json").path, "--syncs",
            world.folder.appendingPathComponent("usersyncs.json").path,
        ])
        #expect(syncStatus == 1 && sync.contains(advice) && sync.contains("log in again with msync login"), "\(sync)")
        #expect(!sync.contains("DONE"), "\(sync)")
    }

    /// A login server that refuses the login request (here a LocalForce without --auth: it knows
    /// no app) ends msync login at once with its reason, not after --timeout seconds.
    @Test func aRefusedLoginRequestEndsTheLoginAtOnce() async throws {
        let harness = try await CommandLineOrg()
        defer { Task { await harness.stop() } }
        // Killed after 120 s (status 15) if it waited for the browser.
        let (status, text) = try await Msync.run(
            ["login", "--instance-url", harness.baseURL.absoluteString, "--no-browser", "--callback-port", "0", "--timeout", "300"],
            timeout: .seconds(120))
        #expect(status == 1, "\(text)")
        #expect(text.contains("refused the login request (400, invalid_client_id: client identifier invalid)"), "\(text)")
        #expect(text.contains("LocalForce serves OAuth only when started with --auth FILE") && !text.contains("Log in at"), "\(text)")
        // A login server that cannot be reached is said the same way.
        let (downStatus, down) = try await Msync.run([
            "login", "--instance-url", "http://127.0.0.1:1", "--no-browser", "--callback-port", "0",
        ])
        #expect(downStatus == 1 && down.contains("cannot reach the login server 127.0.0.1"), "\(down)")
    }
}
