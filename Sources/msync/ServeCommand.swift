import ArgumentParser
import Foundation
import LocalForce

/// `msync serve`: runs LocalForce, a Salesforce-REST-compatible server.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run LocalForce, a Salesforce-REST-compatible server, until interrupted.",
        discussion: """
            Point any Salesforce REST client at the printed URL with the token as its session id:
              msync serve --port 8080 --token secret --database org.sqlite
              curl -H 'Authorization: Bearer secret' 'http://127.0.0.1:8080/services/data/v66.0/query?q=SELECT+Id+FROM+Account'
            """
    )

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free one).")
    var port = 8080

    @Option(help: "Bearer token clients must send (one is generated and printed when omitted).")
    var token: String?

    @Option(help: "SQLite file holding the org's data, or :memory:.")
    var database = ":memory:"

    @Option(help: "JSON schema file adding custom objects and fields.")
    var schema: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        if let token, token.isEmpty { throw ValidationError("--token must not be empty") }
    }

    func run() async throws {
        let schemaDefinition = try schema.map { try SchemaFile.load(contentsOf: URL(fileURLWithPath: $0)) } ?? .standard
        let generated = token == nil
        let bearer = token ?? Self.generateToken()
        let localForce = try await LocalForce(schema: schemaDefinition, database: try SQLiteDatabase(path: database), token: bearer)
        let server = try await LocalForceServer.start(localForce, host: host, port: port)
        var banner = "LocalForce listening on \(server.baseURL.absoluteString)\n"
        if generated { banner += "token: \(bearer)\n" }
        FileHandle.standardOutput.write(Data(banner.utf8))
        try await server.wait()
    }

    static func generateToken() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return "00D" + String((0..<40).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }
}
