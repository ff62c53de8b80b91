import FastJSON

/// `@{referenceId.path}` references between composite subrequests (`@{newAccount.id}`,
/// `@{query.records[0].Id}`), resolved against earlier subrequests' response bodies.
struct CompositeReferences {
    /// Response bodies by reference id (nil: the subrequest failed or has no body).
    private(set) var bodies: [String: JSONValue?] = [:]
    private(set) var failed: Set<String> = []

    mutating func record(_ referenceId: String, status: Int, body: [UInt8]) {
        if status >= 400 { failed.insert(referenceId) }
        bodies[referenceId] = body.isEmpty ? nil : (try? JSONValue(parsing: body))
    }

    /// Replaces references in a URL (as text).
    func resolve(url: String) throws(APIError) -> String {
        try substitute(url) { value throws(APIError) in
            value.stringValue ?? value.jsonString
        }
    }

    /// Replaces references in a body: a string that is exactly one reference takes the
    /// referenced value (keeping its JSON type); references inside longer strings are spliced.
    func resolve(body: JSONValue) throws(APIError) -> JSONValue {
        switch body {
        case .string(let text):
            if text.hasPrefix("@{"), text.hasSuffix("}"), text.firstIndex(of: "}") == text.index(before: text.endIndex) {
                return try value(of: String(text.dropFirst(2).dropLast()))
            }
            return .string(try resolve(url: text))
        case .array(let elements):
            var resolved: [JSONValue] = []
            for element in elements { resolved.append(try resolve(body: element)) }
            return .array(resolved)
        case .object(let members):
            var resolved: [String: JSONValue] = [:]
            for (key, member) in members { resolved[key] = try resolve(body: member) }
            return .object(resolved)
        default:
            return body
        }
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
