import ArgumentParser
import Foundation
import SmartStore

/// How a command prints rows: an aligned table for people, JSON lines or CSV for programs.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, csv

    /// `table` on a terminal, `json` when the output is piped or redirected.
    static func resolved(_ chosen: OutputFormat?) -> OutputFormat {
        chosen ?? (isatty(STDOUT_FILENO) != 0 ? .table : .json)
    }
}

/// Rows with named columns, printed in an ``OutputFormat``.
struct RowPrinter {
    /// Objects as rows: one column per member name (entry ids, then names in order, then the
    /// entry dates), each object's members in them.
    struct Objects {
        let printer: RowPrinter
        let objects: [JSONValue]
        let rows: [[JSONValue]]

        /// JSON lines are the objects as they are, members in column order (nested objects'
        /// sorted), the same on every line; the other formats use the columns.
        func print() {
            guard printer.format != .json else {
                FileHandle.standardOutput.write(
                    Data(objects.map { RowPrinter.stableJSON($0, first: printer.columns) + "\n" }.joined().utf8))
                return
            }
            printer.print(rows)
        }
    }

    /// `order`: member names that come first, in this order (matched regardless of case), such
    /// as a SOQL query's SELECT list.
    static func table(of objects: [JSONValue], format: OutputFormat, order: [String] = []) -> Objects {
        var names = Set<String>()
        for object in objects { names.formUnion(object.objectValue?.keys ?? [:].keys) }
        let ordered = order.compactMap { wanted in names.first { $0.lowercased() == wanted.lowercased() } }
        let first = (ordered.isEmpty ? ["_soupEntryId", "Id"] : ["attributes"]).filter(names.contains) + ordered
        let last = ["_soupCreatedDate", "_soupLastModifiedDate"].filter(names.contains)
        let columns = first + names.subtracting(first + last).sorted() + last
        let rows = objects.map { object in columns.map { object[$0] ?? .null } }
        return Objects(printer: RowPrinter(columns: columns, format: format), objects: objects, rows: rows)
    }

    /// `value` as JSON text with every object's members in a stable order: `first` (the top
    /// level's columns) in that order, the rest sorted. Values come parsed (depth-limited).
    static func stableJSON(_ value: JSONValue, first: [String] = []) -> String {
        switch value {
        case .object(let members):
            let keys = first.filter { members[$0] != nil } + members.keys.filter { !first.contains($0) }.sorted()
            return "{" + keys.map { JSONValue.string($0).jsonString + ":" + stableJSON(members[$0] ?? .null) }.joined(separator: ",") + "}"
        case .array(let items):
            return "[" + items.map { stableJSON($0) }.joined(separator: ",") + "]"
        default:
            return value.sortedJSONString
        }
    }

    let columns: [String]
    let format: OutputFormat
    /// Table cells wider than this many terminal columns are cut (with `…`); JSON and CSV are never cut.
    var maximumCellWidth = 60

    /// Prints `rows` (each with one value per column; missing values print as empty/null).
    func print(_ rows: [[JSONValue]]) {
        var output = ""
        switch format {
        case .json:
            // Members in column order, each column once (a repeated name gets `:1`, `:2`…).
            let keys = Self.uniqueNames(columns).map { JSONValue.string($0).jsonString }
            for row in rows {
                let members = keys.indices.map { index in keys[index] + ":" + (index < row.count ? row[index] : .null).jsonString }
                output += "{" + members.joined(separator: ",") + "}\n"
            }
        case .csv:
            output += columns.map(Self.csvField).joined(separator: ",") + "\r\n"
            for row in rows { output += row.map { Self.csvField(Self.text($0)) }.joined(separator: ",") + "\r\n" }
        case .table:
            let cells = rows.map { row in columns.indices.map { index in cut(index < row.count ? Self.text(row[index]) : "") } }
            // Padded by the columns a terminal gives the text (日本語 and emoji take two each).
            var widths = columns.map(\.displayWidth)
            for row in cells { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.displayWidth) } }
            func line(_ values: [String]) -> String {
                zip(values, widths).map { $0 + String(repeating: " ", count: max(0, $1 - $0.displayWidth)) }.joined(separator: "  ")
                    .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) + "\n"
            }
            output += line(columns)
            output += line(widths.map { String(repeating: "─", count: $0) })
            for row in cells { output += line(row) }
            output += "(\(rows.count) \(rows.count == 1 ? "row" : "rows"))\n"
        }
        FileHandle.standardOutput.write(Data(output.utf8))
    }

    /// A cell as the terminal shows it: control characters (line breaks, tabs, escape
    /// sequences from the data) as their visible symbols (U+2400…), cut at the width.
    private func cut(_ text: String) -> String {
        var flat = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0..<0x20: flat.append(Unicode.Scalar(0x2400 + scalar.value) ?? "?")
            case 0x7F: flat.append("\u{2421}")
            default: flat.append(scalar)
            }
        }
        let visible = String(flat)
        return visible.displayWidth > maximumCellWidth ? visible.prefix(columns: maximumCellWidth - 1) + "…" : visible
    }

    /// `names` with repeats made distinct: the second `Name` becomes `Name:1`.
    static func uniqueNames(_ names: [String]) -> [String] {
        var seen: [String: Int] = [:]
        return names.map { name in
            let count = seen[name, default: 0]
            seen[name] = count + 1
            return count == 0 ? name : "\(name):\(count)"
        }
    }

    /// A value as a cell: strings bare, null empty, everything else as JSON.
    static func text(_ value: JSONValue) -> String {
        switch value {
        case .null: ""
        case .string(let string): string
        default: value.sortedJSONString
        }
    }

    /// RFC 4180: quoted when it holds a comma, quote or line break; quotes doubled. Checked on
    /// scalars: `\r\n`, or a quote followed by a combining mark, is one Character.
    static func csvField(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for scalar in text.unicodeScalars {
            if scalar == "\"" { quoted.append("\"") }
            quoted.append(scalar)
        }
        quoted.append("\"")
        return String(quoted)
    }
}
