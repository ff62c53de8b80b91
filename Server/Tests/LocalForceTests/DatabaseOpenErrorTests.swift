import Foundation
import LocalForcePostgres
import Testing

@testable import LocalForce

/// A database that cannot be opened says which one and why.
@Suite struct DatabaseOpenErrorTests {
    @Test func sqliteNamesThePath() throws {
        let path = "/nonexistent-\(UUID().uuidString)/org.sqlite"
        #expect {
            _ = try SQLiteDatabase(path: path)
        } throws: { error in
            error is DatabaseOpenError && "\(error)".contains("Cannot open the SQLite database at \(path)")
        }
        #expect {
            _ = try SQLiteDatabase(path: "")
        } throws: { error in
            "\(error)".contains("must not be empty")
        }
    }

    @Test func unreachablePostgreSQLNamesTheServer() async throws {
        // Port 1 on loopback: nothing listens, the connection is refused at once.
        await #expect {
            _ = try await DatabaseLocation.open("postgres://someone:secret@127.0.0.1:1/org", connections: 1)
        } throws: { error in
            let text = "\(error)"
            return error is DatabaseOpenError && text.contains("Cannot connect to PostgreSQL at 127.0.0.1:1/org as someone")
                && !text.contains("Generic description") && !text.contains("secret")
        }
    }
}
