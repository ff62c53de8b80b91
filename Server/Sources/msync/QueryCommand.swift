import ArgumentParser
import Foundation
import SalesforceREST
import SmartStore

/// `msync query --store PATH "SMART SQL"`: runs a Smart SQL query against a store, or with
/// `--org` a SOQL query against the org, and prints the rows (see ``OutputFormat``).
struct QueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract:
            "Run a Smart SQL query against a store (or SOQL against the org) and print the rows: a table on a terminal, JSON lines when piped.",
        discussion: """
            Smart SQL names soups as {soup} and their paths as {soup:path}, for example:
              msync query --store app.sqlite "select {accounts:Name} from {accounts}"

            With --org the query is SOQL, sent to the org of the saved login (msync login) or of \
            --instance-url and --token; every page of the answer is printed, one record per line:
              msync query --org "SELECT Id, Name FROM Account ORDER BY Name"
            """
    )

    @Option(help: "Path of an existing store's SQLite file (opened read-only).")
    var store: String?

    @Flag(help: "Query the org with SOQL instead of a store with Smart SQL.")
    var org = false

    @Option(help: "Rows per page (store queries).")
    var pageSize: Int = 1000

    @Option(help: "Zero-based page to print (store queries).")
    var page: Int = 0

    @Option(help: "Output: table (the default on a terminal), json (one object per line, the default when piped) or csv.")
    var format: OutputFormat?

    @OptionGroup(title: "Encryption")
    var encryption: StoreKeyOptions

    @OptionGroup(title: "Server (with --org)")
    var server: ServerOptions

    @Argument(help: "The Smart SQL SELECT statement (SOQL with --org).")
    var query: String

    func validate() throws {
        guard pageSize > 0 else { throw ValidationError("--page-size must be at least 1") }
        guard page >= 0 else { throw ValidationError("--page must not be negative") }
        guard org != (store != nil) else { throw ValidationError("give either --store (Smart SQL) or --org (SOQL)") }
    }

    func run() async throws {
        let format = OutputFormat.resolved(format)
        if org {
            do {
                try await queryOrg(format: format)
            } catch RestError.sessionExpired(let detail) {
                // A refused --token or saved login said as such, with what to do.
                throw server.refusal(detail)
            }
            return
        }
        guard let store else { return }
        // Read-only: inspecting a store never creates, migrates or changes it.
        let smartStore = try encryption.open(store, readOnly: true)
        let spec = QuerySpec.smart(query, pageSize: pageSize)
        let rows = try await smartStore.query(spec, pageIndex: page)
        if !rows.isEmpty, rows.allSatisfy({ $0.objectValue != nil }) {
            RowPrinter.table(of: rows, format: format).print()
        } else {
            RowPrinter(columns: try smartStore.columnNames(of: spec), format: format).print(rows.map { $0.arrayValue ?? [$0] })
        }
        // Never cut short without a word: say (on stderr, the rows stay clean) how to see the rest.
        let (skipped, overflow) = page.multipliedReportingOverflow(by: pageSize)
        if !overflow, rows.count == pageSize, let total = try? await smartStore.count(spec), total - skipped > pageSize {
            let shown = "rows \(skipped + 1)–\(skipped + rows.count) of \(total)"
            FileHandle.standardError.write(
                Data("\(shown): --page \(page + 1) for the next \(pageSize), or --page-size \(total) for all at once\n".utf8))
        }
    }

    /// The SOQL query against the org: its rows, or its count for `SELECT COUNT()`.
    private func queryOrg(format: OutputFormat) async throws {
        let client = try await server.client()
        var page = try await client.query(query)
        let soql = SOQLColumns(query)
        if soql.isCountOnly {
            // The answer is a total and no records: print the total.
            RowPrinter(columns: ["count"], format: format).print([[.int(Int64(page.totalSize))]])
            return
        }
        var records: [JSONValue] = []
        while true {
            // JSON lines keep records as the org sent them; a table or CSV has a column per
            // field, parents' fields included, and no room for `attributes`.
            let batch = try page.records().map { format == .json ? $0 : soql.flattened($0) }
            if format == .json {
                RowPrinter.table(of: batch, format: format, order: soql.memberOrder).print()
            } else {
                records += batch // a table is aligned over every row
            }
            guard !page.done, let next = page.nextRecordsURL else { break }
            page = try await client.queryMore(next)
        }
        if format != .json { RowPrinter.table(of: records, format: format, order: soql.order).print() }
    }
}
