import ArgumentParser
import FastJSON
import Foundation
import Hummingbird
import Logging
import SalesforceREST
import ServiceLifecycle

/// `msync inspect --store F [--org]`: a read-only web page on 127.0.0.1 for a store, the syncs
/// running on it, and the org on the other side (reached as `msync query --org` reaches it).
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Inspect a store (and its org) in a browser: soups, Smart SQL, records, live sync states.",
        discussion: """
            Serves a page on 127.0.0.1 and prints its address, which carries a random token: every \
            request without it is refused. The store is opened read-only; sync states are read again \
            on every refresh, so a sync that another process runs on the store shows its progress. \
            With --org, the page also shows a soup's records beside the org's: the org of the saved \
            login (msync login), or of --instance-url and --token, as for msync query --org.

            Example:
              msync inspect --store demo-data/store.sqlite --org \\
                --instance-url http://127.0.0.1:8080 --token secret
            """)

    @Option(help: "Path of an existing store's SQLite file.")
    var store: String

    @Flag(help: "Compare the store's records with the org's.")
    var org = false

    @Option(help: "Port to listen on, on 127.0.0.1 (0 picks a free one).")
    var port = 0

    @OptionGroup(title: "Encryption")
    var encryption: StoreKeyOptions

    @OptionGroup(title: "Server (with --org)")
    var server: ServerOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be in 0...65535") }
        if !org && (server.instanceUrl != nil || server.token != nil) {
            throw ValidationError("--instance-url and --token name the org to compare with: give --org too")
        }
    }

    func run() async throws {
        let client = org ? try await server.client() : nil
        let data = InspectorData(path: store, key: encryption.key(), org: client)
        _ = try data.store() // fails now, with the reason, rather than on the first page load
        if let client {
            let org = client.instanceURL.absoluteString
            // The page still shows the store; say now that the comparison will not work.
            var problem: String?
            do { try await ServerOptions.probe(client) } catch RestError.sessionExpired(let detail) {
                problem = server.refusal(detail).description
            } catch RestError.http(let status, _, _) {
                problem = "the org at \(org) answered \(status) to a request for its resources"
            } catch {
                problem = "the org at \(org) did not answer (\(error))"
            }
            if let problem {
                FileHandle.standardError.write(Data("warning: \(problem); the store is shown, but comparing with the org fails\n".utf8))
            }
        }
        let pageToken = ServeCommand.generateToken()
        let server = try await InspectorServer.start(data: data, token: pageToken, port: port)
        FileHandle.standardOutput.write(Data("Inspector: \(server.address)/?token=\(pageToken)\n(read-only; Ctrl-C stops it)\n".utf8))
        try await server.wait()
    }
}
