import Foundation
import TestSupport
import Testing

/// The simple-salesforce example of docs/msync.md runs as written: the org served as the shell
/// lines say, the Python as it stands (its address and token replaced by this run's).
@Suite struct OtherClientsTests {
    static let guide = Msync.serverPackage.deletingLastPathComponent().appendingPathComponent("docs/msync.md")

    /// The fenced blocks of `language` in the section under `heading`.
    static func blocks(_ language: String, under heading: String) throws -> [String] {
        let text = try String(contentsOf: guide, encoding: .utf8)
        let start = try #require(text.range(of: "## \(heading)\n"))
        let section = text[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        return section[..<end].components(separatedBy: "```\(language)\n").dropFirst().compactMap {
            $0.components(separatedBy: "```").first
        }
    }

    @Test func theSimpleSalesforceExampleRuns() async throws {
        let shell = try #require(try Self.blocks("sh", under: "Other Salesforce clients").first)
        let python = try #require(try Self.blocks("python", under: "Other Salesforce clients").first)
        let serve = try #require(shell.split(separator: "\n").first { $0.hasPrefix("msync serve") })
        let folder = try Msync.folder("msync-clients")
        defer { try? FileManager.default.removeItem(at: folder) }
        let tls = folder.appendingPathComponent("tls").path
        // As documented, on a free port, the TLS folder in this test's folder.
        let arguments = serve.split(separator: " ").dropFirst().map { word in
            switch word {
            case "8080": "0"
            case "tls": tls
            default: String(word)
            }
        }
        #expect(arguments == ["serve", "--port", "0", "--token", "TOKEN", "--tls-self-signed", tls], "\(serve)")
        #expect(shell.contains("export REQUESTS_CA_BUNDLE=$PWD/tls/ca.pem"), "\(shell)")
        let server = try RunningChild(try Msync.binary(), arguments, output: .both)
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let banner = await ChildProcess.read(try #require(server.output)) { text in
            text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().contains { $0.contains("listening on") }
        }
        let url = try LoginCommandTests.address(banner).absoluteString
        let script = python.replacingOccurrences(of: "https://127.0.0.1:8080", with: url)
        let file = folder.appendingPathComponent("example.py")
        try Data(script.utf8).write(to: file)
        var environment = ProcessInfo.processInfo.environment
        environment["REQUESTS_CA_BUNDLE"] = tls + "/ca.pem"
        let (status, output) = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", file.path], environment: environment, timeout: .seconds(120))
        #expect(status == 0, "\(output)")
        let lines = output.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("001") && lines[0].hasSuffix(" Acme"), "\(output)")
    }
}
