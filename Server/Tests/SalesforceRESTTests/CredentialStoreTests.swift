import Foundation
import SalesforceREST
import Testing

@Suite struct CredentialStoreTests {
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("msync-credentials-\(UUID().uuidString)")
    }

    static let server: URL = {
        guard let url = URL(string: "http://127.0.0.1:8080") else { preconditionFailure("a valid literal URL") }
        return url
    }()
    static let sample = OAuthCredentials(
        accessToken: "00D!access", refreshToken: "5Aep-refresh", instanceURL: server,
        identityURL: URL(string: "http://127.0.0.1:8080/id/00D000000000001AAA/005000000000001AAA"), scope: "api refresh_token",
        issuedAt: 1_700_000_000_000, loginURL: server, clientId: "msync")

    @Test func savesOwnerOnlyFilesAndReadsThemBack() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileCredentialStore(directory: directory)
        #expect(try store.load(account: "default") == nil)
        try store.save(Self.sample, account: "default")
        #expect(try store.load(account: "default") == Self.sample)
        let file = try store.file(account: "default")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let directoryMode = try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int
        #expect(directoryMode == 0o700)
        var renewed = Self.sample
        renewed.accessToken = "00D!renewed"
        try store.save(renewed, account: "default")
        #expect(try store.load(account: "default")?.accessToken == "00D!renewed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["default.json"])
        try store.delete(account: "default")
        #expect(try store.load(account: "default") == nil)
        try store.delete(account: "default")
    }

    @Test func refusesFilesOthersCanReadAndBadNames() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileCredentialStore(directory: directory)
        try store.save(Self.sample, account: "shared")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: try store.file(account: "shared").path)
        #expect(throws: CredentialStoreError.self) { try store.load(account: "shared") }
        for bad in ["", "../escape", ".hidden", "a/b", String(repeating: "x", count: 65)] {
            #expect(throws: CredentialStoreError.self) { try store.save(Self.sample, account: bad) }
        }
        try Data("not json".utf8).write(to: directory.appendingPathComponent("broken.json"))
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o600], ofItemAtPath: directory.appendingPathComponent("broken.json").path)
        #expect(throws: CredentialStoreError.self) { try store.load(account: "broken") }
    }

    @Test func theDescriptionNeverShowsATokenAndTheDefaultDirectoryFollowsXDG() {
        let text = "\(Self.sample)"
        #expect(!text.contains("00D!access"))
        var dumped = ""
        dump(Self.sample, to: &dumped)
        #expect(!dumped.contains("00D!access") && !dumped.contains("5Aep-refresh"))
        #expect(!text.contains("5Aep-refresh"))
        #expect(Self.sample.identityIds?.userId == "005000000000001AAA")
        #expect(
            FileCredentialStore.defaultDirectory(environment: ["XDG_CONFIG_HOME": "/cfg", "HOME": "/home/u"]).path
                == "/cfg/msync/credentials")
        #expect(FileCredentialStore.defaultDirectory(environment: ["HOME": "/home/u"]).path == "/home/u/.config/msync/credentials")
    }
}
