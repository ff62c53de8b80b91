import ArgumentParser
import SmartStore

/// `msync query --store PATH "SMART SQL"`: runs a Smart SQL query and prints the rows as JSON.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run a Smart SQL query against a store and print the rows as JSON.",
        discussion: """
            Smart SQL names soups as {soup} and their paths as {soup:path}, for example:
              msync query --store app.sqlite "select {accounts:Name} from {accounts} order by {accounts:Name}"
            """
    )

    @Option(help: "Path of an existing store's SQLite file (opened read-only).")
    var store: String

    @Option(help: "Rows per page.")
    var pageSize: Int = 1000

    @Option(help: "Zero-based page to print.")
    var page: Int = 0

    @OptionGroup(title: "Encryption")
    var encryption: StoreKeyOptions

    @Argument(help: "The Smart SQL SELECT statement.")
    var smartSql: String

    func validate() throws {
        guard pageSize > 0 else { throw ValidationError("--page-size must be at least 1") }
        guard page >= 0 else { throw ValidationError("--page must not be negative") }
    }

    func run() throws {
        // Read-only: inspecting a store never creates, migrates or changes it.
        let smartStore = try SmartStore(readOnlyAt: store, key: encryption.key())
        let rows = try smartStore.query(.smart(smartSql, pageSize: pageSize), pageIndex: page)
        for row in rows { print(row.jsonString) }
    }
}
