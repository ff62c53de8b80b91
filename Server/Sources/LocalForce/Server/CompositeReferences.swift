import FastJSON

/// `@{referenceId.path}` references between composite subrequests (`@{newAccount.id}`,
/// `@{query.records[0].Id}`), resolved against earlier subrequests' response bodies.
///
/// What one subrequest's references expand to is bounded (``Expansion``): a short request must
/// not buy megabytes of text to parse and write inside the org's write transaction.
struct CompositeReferences {
    /// What the references of one subrequest have expanded to so far.
    struct Expansion {
        /// The most references one subrequest may hold.
        static let maximumCount = 1_000
        /// The most bytes the references of one subrequest may expand to, together.
        static let maximumBytes = 256 * 1024
        private(set) var count = 0
        private(set) var bytes = 0

        /// Counts one more reference, of `size` bytes (`nil`: already known to be too large).
        mutating func add(_ size: Int?) throws(APIError) {
            count += 1
            guard count <= Self.maximumCount else {
                throw APIError(400, "LIMIT_EXCEEDED", "A subrequest may hold at most \(Self.maximumCount) references")
            }
            guard let size, size <= Self.maximumBytes - bytes else {
                throw APIError(
                    400, "LIMIT_EXCEEDED", "The references of a subrequest expand to more than \(Self.maximumBytes) bytes")
            }
            bytes += size
        }

        /// What is left to spend.
        var remaining: Int { Self.maximumBytes - bytes }
    }

    /// Response bodies by reference id (nil: the subrequest failed or has no body).
    private(set) var bodies: [String: JSONValue?] = [:]
    private(set) var failed: Set<String> = []

    mutating func record(_ referenceId: String, status: Int, body: [UInt8]) {
        if status >= 400 { failed.insert(referenceId) }
        bodies[referenceId] = body.isEmpty ? nil : (try? JSONValue(parsing: body))
    }

    /// Replaces references in a URL (as text).
    func resolve(url: String, expansion: inout Expansion) throws(APIError) -> String {
        try substitute(url) { value throws(APIError) in
            if let text = value.stringValue {
                try expansion.add(text.utf8.count)
                return text
            }
            try expansion.add(Self.size(of: value, within: expansion.remaining))
            return value.jsonString
        }
    }

    /// Replaces references in a body: a string that is exactly one reference takes the
    /// referenced value (keeping its JSON type); references inside longer strings are spliced.
    func resolve(body: JSONValue, expansion: inout Expansion) throws(APIError) -> JSONValue {
        switch body {
        case .string(let text):
            if text.hasPrefix("@{"), text.hasSuffix("}"), text.firstIndex(of: "}") == text.index(before: text.endIndex) {
                let value = try value(of: String(text.dropFirst(2).dropLast()))
                try expansion.add(Self.size(of: value, within: expansion.remaining))
                return value
            }
            return .string(try resolve(url: text, expansion: &expansion))
        case .array(let elements):
            var resolved: [JSONValue] = []
            for element in elements { resolved.append(try resolve(body: element, expansion: &expansion)) }
            return .array(resolved)
        case .object(let members):
            var resolved: [String: JSONValue] = [:]
            for (key, member) in members { resolved[key] = try resolve(body: member, expansion: &expansion) }
            return .object(resolved)
        default:
            return body
        }
    }

    /// About the size of `value` as JSON text, or `nil` once it passes `budget` (counting stops
    /// there, so a huge value costs no more than the budget to measure). Values come from
    /// parsed responses, whose depth the parser bounds.
    static func size(of value: JSONValue, within budget: Int) -> Int? {
        var total = 0
        func visit(_ value: JSONValue) -> Bool {
            switch value {
            case .string(let text): total += text.utf8.count + 2
            case .array(let elements):
                total += 2
                for element in elements where total <= budget {
                    total += 1
                    guard visit(element) else { return false }
                }
            case .object(let members):
                total += 2
                for (key, member) in members where total <= budget {
                    total += key.utf8.count + 4
                    guard visit(member) else { return false }
                }
            default: total += 8
            }
            return total <= budget
        }
        return visit(value) ? total : nil
    }

    /// The referenced subrequests of a text, to know whether it depends on a failed one.
    func dependsOnFailure(_ texts: [String]) -> Bool {
        texts.contains { text in references(in: text).contains { failed.contains(String($0.split(separator: ".").first ?? "")) } }
    }

    private func references(in text: String) -> [String] {
        var result: [String] = []
        var remainder = text[...]
        while let start = remainder.range(of: "@{"), let end = remainder[start.upperBound...].firstIndex(of: "}") {
            result.append(String(remainder[start.upperBound..<end]))
            remainder = remainder[remainder.index(after: end)...]
        }
        return result
    }

    private func substitute(_ text: String, _ render: (JSONValue) throws(APIError) -> String) throws(APIError) -> String {
        var output = ""
        var remainder = text[...]
        while let start = remainder.range(of: "@{"), let end = remainder[start.upperBound...].firstIndex(of: "}") {
            output += remainder[..<start.lowerBound]
            output += try render(try value(of: String(remainder[start.upperBound..<end])))
            remainder = remainder[remainder.index(after: end)...]
        }
        return output + remainder
    }

    /// `ref.a.b[0].c` against the body of `ref`.
    private func value(of reference: String) throws(APIError) -> JSONValue {
        let invalid = APIError(400, "INVALID_REFERENCE", "Invalid reference specified. No value for @{\(reference)} found.")
        var components = reference.split(separator: ".").map(String.init)
        guard !components.isEmpty, let stored = bodies[components.removeFirst()], var current = stored else { throw invalid }
        for component in components {
            var name = component
            var indexes: [Int] = []
            while let open = name.lastIndex(of: "["), name.hasSuffix("]"),
                let index = Int(name[name.index(after: open)..<name.index(before: name.endIndex)])
            {
                indexes.insert(index, at: 0)
                name = String(name[..<open])
            }
            if !name.isEmpty {
                guard let next = current[name] ?? current.objectValue?.first(where: { $0.key.lowercased() == name.lowercased() })?.value
                else { throw invalid }
                current = next
            }
            for index in indexes {
                guard let elements = current.arrayValue, elements.indices.contains(index) else { throw invalid }
                current = elements[index]
            }
        }
        return current
    }
}
