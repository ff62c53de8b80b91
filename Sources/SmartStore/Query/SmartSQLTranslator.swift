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
                    try translateReferences(input, in: (index + 1)..<max(index + 1, end - 1), into: &output)
                    if end - 1 > index { output.append(input[end - 1]) }
                } else {
                    output.append(contentsOf: input[index..<end])
                }
                index = end
            } else if byte == UInt8(ascii: "{"), let close = Self.closingBrace(input, from: index) {
                try appendReference(input, open: index, close: close, into: &output)
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
    private func translateReferences(_ input: [UInt8], in range: Range<Int>, into output: inout [UInt8]) throws {
        var index = range.lowerBound
        while index < range.upperBound {
            if input[index] == UInt8(ascii: "{"), let close = Self.closingBrace(input, from: index), close < range.upperBound {
                try appendReference(input, open: index, close: close, into: &output)
                index = close + 1
            } else {
                output.append(input[index])
                index += 1
            }
        }
    }

    private func appendReference(_ input: [UInt8], open: Int, close: Int, into output: inout [UInt8]) throws {
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
            return
        }
        let path = parts[1]
        let qualified = open > 0 && input[open - 1] == UInt8(ascii: ".")
        let prefix = qualified ? "" : soup.tableName + "."
        let replacement: String
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
                let qualifier = Self.popQualifier(&output)
                replacement = "json_extract(\(qualifier).soup" + expression.dropFirst("json_extract(soup".count)
            } else {
                replacement = expression
            }
        }
        output.append(contentsOf: replacement.utf8)
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

    private static func isWordByte(_ byte: UInt8) -> Bool {
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
