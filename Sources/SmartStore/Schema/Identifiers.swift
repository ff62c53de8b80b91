/// Validation of names and paths that end up inside SQL text.
///
/// Values are always bound; but table names are derived from soup ids, and index paths
/// appear inside `json_extract(soup, '$.path')` expressions and functional indexes, so they
/// are restricted to characters that cannot break out of a literal.
enum Identifiers {
    static let maximumLength = 255

    /// Soup names: letters, digits, `_`, `-` and `.`, 1 to 255 characters.
    static func validateSoupName(_ name: String) throws(SmartStoreError) {
        guard isSimpleName(name) else { throw .invalidSoupName(name) }
    }

    /// Store names become directory names: same alphabet as soup names, no leading `.`.
    static func validateStoreName(_ name: String) throws(SmartStoreError) {
        guard isSimpleName(name), !name.hasPrefix(".") else { throw .invalidStoreName(name) }
    }

    /// Paths: dot-separated non-empty components of letters (any script), digits, `_`, `-` and `$`.
    static func validatePath(_ path: String) throws(SmartStoreError) {
        guard !path.isEmpty, path.utf8.count <= maximumLength else { throw .invalidPath(path) }
        for component in path.split(separator: ".", omittingEmptySubsequences: false) {
            guard !component.isEmpty,
                component.unicodeScalars.allSatisfy({ scalar in
                    scalar == "_" || scalar == "-" || scalar == "$"
                        || (scalar.isASCII
                            ? CharacterSet.asciiAlphanumerics(scalar)
                            : scalar.properties.isAlphabetic
                                || scalar.properties.numericType != nil)
                })
            else { throw .invalidPath(path) }
        }
    }

    private static func isSimpleName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= maximumLength else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            scalar == "_" || scalar == "-" || scalar == "." || CharacterSet.asciiAlphanumerics(scalar)
        }
    }
}

/// A tiny stand-in for Foundation's CharacterSet, to keep this check allocation-free.
private enum CharacterSet {
    static func asciiAlphanumerics(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        default: false
        }
    }
}
