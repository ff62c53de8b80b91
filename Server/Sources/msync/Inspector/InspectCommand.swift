import ArgumentParser
import FastJSON
import Foundation
import Hummingbird
import Logging
import SalesforceREST
import ServiceLifecycle

/// `msync inspect --store F [--org URL --token T]`: a read-only web page on 127.0.0.1 for a store,
/// the syncs running on it, and the org on the other side.
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Inspect a store (and its org) in a browser: soups, Smart SQL, records, live sync states.",
        discussion: """
            Serves a page on 127.0.0.1 and prints its address, which carries a random token: every \
            request without it is refused. The store is opened read-only; sync states are read again \
            on every refresh, so a sync that another process runs on the store shows its progress. \
            With --org and --token, the page also shows a soup's records beside the org's.

            Example:
              msync inspect --store demo-data/store.sqlite \\
                --org http://127.0.0.1:8080 --token secret
            """)

    @Option(help: "Path of an existing store's SQLite file.")
    var store: String

    @Option(help: ArgumentHelp("The org to compare with (its instance URL).", valueName: "url"))
    var org: String?

    @Option(help: ArgumentHelp("The org's access token (with --org).", valueName: "token"))
    var token: String?

    @Option(help: "Port to listen on, on 127.0.0.1 (0 picks a free one).")
    var port = 0

    @OptionGroup(title: "Encryption")
    var encryption: StoreKeyOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be in 0...65535") }
        guard (org == nil) == (token == nil) else { throw ValidationError("give --org and --token together") }
        if let org {
            guard let url = URL(string: org), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw ValidationError("--org must be an http(s) URL")
            }
        }
    }

    func run() async throws {
        let client = try org.flatMap(URL.init(string:)).map { url in
            RestClient(instanceURL: url, tokenProvider: StaticAccessToken(try token.unwrapped("--token")))
        }
        let data = InspectorData(path: store, key: encryption.key(), org: client)
        _ = try data.store() // fails now, with the reason, rather than on the first page load
        if let client, let org {
            // The page still shows the store; say now that the comparison will not work.
            var problem: String?
            do { try await ServerOptions.probe(client) } catch RestError.sessionExpired {
                problem = "refused the token given with --token (INVALID_SESSION_ID)"
            } catch RestError.http(let status, _, _) {
                problem = "answered \(status) to a request for its resources"
            } catch {
                problem = "did not answer (\(error))"
            }
            if let problem {
                FileHandle.standardError.write(
                    Data("warning: the org at \(org) \(problem); the store is shown, but comparing with the org fails\n".utf8))
            }
        }
        let pageToken = ServeCommand.generateToken()
        let server = try await InspectorServer.start(data: data, token: pageToken, port: port)
        FileHandle.standardOutput.write(Data("Inspector: \(server.address)/?token=\(pageToken)\n(read-only; Ctrl-C stops it)\n".utf8))
        try await server.wait()
    }
}

extension Optional {
    /// The value, or a usage error naming what is missing.
    func unwrapped(_ what: String) throws -> Wrapped {
        guard let self else { throw ValidationError("\(what) is required") }
        return self
    }
}
