/// Translates Smart SQL into SQLite SQL over the soup tables.
///
/// Smart SQL is SQL in which `{soup}` names a soup's table and `{soup:path}` a path of its
/// entries. The translation is the SDK's, so its golden strings hold verbatim:
/// - `{soup}` → `TABLE_N`;
/// - `{soup:_soup}`, `{soup:_soupEntryId}`, `{soup:_soupCreatedDate}`,
///   `{soup:_soupLastModifiedDate}` → `TABLE_N.soup`, `.id`, `.created`, `.lastModified`
///   (without the `TABLE_N.` prefix when written as `alias.{soup:…}`);
/// - a path indexed into a column → `TABLE_N_i`;
/// - a json1-indexed or non-indexed path → `json_extract(soup, '$.path')`, and
///   `alias.{soup:path}` → `json_extract(alias.soup, '$.path')`.
///
/// References inside single-quoted literals are left alone, except in the literal argument
/// of `MATCH`, where full-text column references are expected. Only `SELECT` (and `WITH`)
/// statements are accepted.
struct SmartSQLTranslator {
    /// Looks a soup up by name; `nil` when unknown.
    let soupNamed: (String) throws -> Soup?

    func translate(_ smartSql: String) throws -> String {
        var map = SourceMap()
        return try translate(smartSql, map: &map)
    }

    /// Translates `smartSql` and records in `map` where each reference went.
    func translate(_ smartSql: String, map: inout SourceMap) throws -> String {
        let input = Array(smartSql.utf8)
        try checkIsSelect(input)
        var output: [UInt8] = []
        output.reserveCapacity(input.count + 32)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "'") {
                let end = Self.endOfLiteral(input, from: index)
                if Self.followsMatchKeyword(input, before: index) {
                    output.append(byte)
                    try translateReferences(input, in: (index + 1)..<max(index + 1, end - 1), into: &output, map: &map)
                    if end - 1 > index { output.append(input[end - 1]) }
                } else {
                    output.append(contentsOf: input[index..<end])
                }
                index = end
            } else if byte == UInt8(ascii: "{"), let close = Self.closingBrace(input, from: index) {
                try appendReference(input, open: index, close: close, into: &output, map: &map)
                index = close + 1
            } else {
                output.append(byte)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private func checkIsSelect(_ input: [UInt8]) throws {
        var start = 0
        while start < input.count,
            input[start] == 0x20 || input[start] == 0x0A || input[start] == 0x09
                || input[start] == 0x0D || input[start] == UInt8(ascii: "(")
        {
            start += 1
        }
        let head = String(decoding: input[start..<min(input.count, start + 6)], as: UTF8.self).lowercased()
        guard head.hasPrefix("select") || head.hasPrefix("with") else {
            throw SmartStoreError.invalidSmartSQL("Only SELECT are supported")
        }
    }

    /// Translates the references inside a MATCH literal.
    private func translateReferences(_ input: [UInt8], in range: Range<Int>, into output: inout [UInt8], map: inout SourceMap) throws {
        var index = range.lowerBound
        while index < range.upperBound {
            if input[index] == UInt8(ascii: "{"), let close = Self.closingBrace(input, from: index), close < range.upperBound {
                try appendReference(input, open: index, close: close, into: &output, map: &map)
                index = close + 1
            } else {
                output.append(input[index])
                index += 1
            }
        }
    }

    /// Appends the translation of the reference `input[open...close]`, and records it in `map`.
    private func appendReference(_ input: [UInt8], open: Int, close: Int, into output: inout [UInt8], map: inout SourceMap) throws {
        let start = output.count
        let qualifier = try appendTranslation(input, open: open, close: close, into: &output)
        // A qualifier moved inside the translation (`a.{s:p}` → `json_extract(a.soup, …)`) came from before `{`.
        var outputStart = start - (qualifier.isEmpty ? 0 : qualifier.utf8.count + 1)
        var inputStart = open - (qualifier.isEmpty ? 0 : qualifier.utf8.count + 1)
        // A qualifier that was itself a reference (`{s}.{s:p}`): one piece for both.
        if let previous = map.pieces.last, previous.output.upperBound > outputStart {
            map.pieces.removeLast()
            outputStart = min(outputStart, previous.output.lowerBound)
            inputStart = previous.input.lowerBound
        }
        map.pieces.append(SourceMap.Piece(output: outputStart..<output.count, input: inputStart..<(close + 1)))
    }

    /// Appends the translation of a reference; returns the qualifier it took from the output, if any.
    private func appendTranslation(_ input: [UInt8], open: Int, close: Int, into output: inout [UInt8]) throws -> String {
        let reference = String(decoding: input[(open + 1)..<close], as: UTF8.self)
        let parts = reference.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let position = open
        guard parts.count <= 2 else {
            throw SmartStoreError.invalidSmartSQL("Invalid soup/path reference {\(reference)} at character \(position)")
        }
        guard let soup = try soupNamed(parts[0]) else {
            throw SmartStoreError.invalidSmartSQL("Unknown soup \(parts[0]) at character \(position)")
        }
        guard parts.count == 2 else {
            output.append(contentsOf: soup.tableName.utf8)
            return ""
        }
        let path = parts[1]
        let qualified = open > 0 && input[open - 1] == UInt8(ascii: ".")
        let prefix = qualified ? "" : soup.tableName + "."
        let replacement: String
        var qualifier = ""
        switch path {
        case "_soup": replacement = prefix + "soup"
        case "_soupEntryId": replacement = prefix + "id"
        case "_soupCreatedDate": replacement = prefix + "created"
        case "_soupLastModifiedDate": replacement = prefix + "lastModified"
        default:
            do {
                try Identifiers.validatePath(path)
            } catch {
                throw SmartStoreError.invalidSmartSQL("Invalid path \(path) at character \(position)")
            }
            let expression = soup.columnExpression(forPath: path)
            if qualified, expression.hasPrefix("json_extract(soup") {
                // alias.json_extract(soup, …) is not SQL: move the qualifier inside.
                qualifier = Self.popQualifier(&output)
                replacement = "json_extract(\(qualifier).soup" + expression.dropFirst("json_extract(soup".count)
            } else {
                replacement = expression
            }
        }
        output.append(contentsOf: replacement.utf8)
        return qualifier
    }

    /// Removes `qualifier.` from the end of the output and returns `qualifier`.
    private static func popQualifier(_ output: inout [UInt8]) -> String {
        guard output.last == UInt8(ascii: ".") else { return "" }
        output.removeLast()
        var start = output.count
        if let last = output.last, last == UInt8(ascii: "'") || last == UInt8(ascii: "\"") || last == UInt8(ascii: "`") {
            start -= 1
            while start > 0, output[start - 1] != last { start -= 1 }
            start = max(0, start - 1)
        } else {
            while start > 0, isWordByte(output[start - 1]) { start -= 1 }
        }
        let qualifier = String(decoding: output[start...], as: UTF8.self)
        output.removeSubrange(start...)
        return qualifier
    }

    static func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), 0x80...0xFF:
            true
        default: false
        }
    }

    /// Index just past the literal starting at `start` (a `'`), honouring `''` escapes.
    private static func endOfLiteral(_ input: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < input.count {
            if input[index] == UInt8(ascii: "'") {
                if index + 1 < input.count, input[index + 1] == UInt8(ascii: "'") {
                    index += 2
                    continue
                }
                return index + 1
            }
            index += 1
        }
        return input.count
    }

    private static func closingBrace(_ input: [UInt8], from open: Int) -> Int? {
        var index = open + 1
        while index < input.count {
            if input[index] == UInt8(ascii: "}") { return index > open + 1 ? index : nil }
            index += 1
        }
        return nil
    }

    /// Whether the literal at `quote` is the argument of a `MATCH` operator.
    private static func followsMatchKeyword(_ input: [UInt8], before quote: Int) -> Bool {
        var end = quote
        while end > 0, input[end - 1] == 0x20 || input[end - 1] == 0x0A || input[end - 1] == 0x09 || input[end - 1] == 0x0D {
            end -= 1
        }
        guard end >= 5 else { return false }
        let word = String(decoding: input[(end - 5)..<end], as: UTF8.self).lowercased()
        return word == "match" && (end == 5 || !isWordByte(input[end - 6]))
    }
}

/// Where each `{soup…}` reference of a Smart SQL statement went in its translation: the text a
/// span of the SQL came from (a column SQLite names by its expression shows as it was written).
struct SourceMap {
    /// A reference: its bytes in the translation, and in the Smart SQL.
    struct Piece {
        let output: Range<Int>
        let input: Range<Int>
    }

    /// In the order they were written (so in increasing `output` and `input`).
    var pieces: [Piece] = []

    /// The bytes of the Smart SQL that `output` (a span of the translation) came from: text
    /// outside references maps one to one, a reference touched maps to all of it.
    func input(of output: Range<Int>) -> Range<Int> {
        var shift = 0 // input offset minus output offset, after the pieces passed
        var lower: Int?
        for piece in pieces {
            if lower == nil, output.lowerBound < piece.output.upperBound {
                lower = output.lowerBound < piece.output.lowerBound ? output.lowerBound + shift : piece.input.lowerBound
            }
            if output.upperBound <= piece.output.lowerBound {
                return (lower ?? output.lowerBound + shift)..<(output.upperBound + shift)
            }
            if output.upperBound <= piece.output.upperBound {
                return (lower ?? piece.input.lowerBound)..<piece.input.upperBound
            }
            shift = piece.input.upperBound - piece.output.upperBound
        }
        return (lower ?? output.lowerBound + shift)..<(output.upperBound + shift)
    }
}
