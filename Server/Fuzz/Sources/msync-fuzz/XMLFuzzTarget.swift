import LocalForce

/// The Bulk API 1.0's XML reader: any input is read or refused without a crash, and what it
/// reads, written back out, reads as the same elements.
struct XMLFuzzTarget: FuzzTarget {
    func run(_ data: [UInt8]) {
        guard let root = try? BulkXMLReader.parse(data) else { return }
        let written = Array(Self.write(root).utf8)
        do {
            let again = try BulkXMLReader.parse(written)
            guard again == root else { fatalError("written back, \(root) read as \(again)") }
        } catch {
            fatalError("written back, \(root) was refused: \(error.message)")
        }
    }

    private static func escape(_ text: String) -> String {
        // By scalar: `&` followed by a combining mark is one Character, but still a reference's start.
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case "\"": out += "&quot;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The element as XML: its text first, then its children (the reader keeps all of an
    /// element's text as one). The reader's depth limit bounds the recursion.
    private static func write(_ element: BulkXMLElement) -> String {
        let attributes = element.attributes.sorted { $0.key < $1.key }.map { " \($0.key)=\"\(escape($0.value))\"" }.joined()
        return "<\(element.name)\(attributes)>\(escape(element.text))\(element.children.map(write).joined())</\(element.name)>"
    }
}
