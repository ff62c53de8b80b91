import FastJSON

/// Writes one record row as Salesforce JSON: `attributes` first, then the shape's members.
enum RecordJSON {
    static func writeAttributes(object: String, id: String?, version: String, to writer: inout JSONWriter) {
        writer.writeKey("attributes")
        writer.write(punctuation: "{")
        writer.writeKey("type")
        writer.writeString(object)
        if let id {
            writer.write(punctuation: ",")
            writer.writeKey("url")
            writer.writeString("/services/data/v\(version)/sobjects/\(object)/\(id)")
        }
        writer.write(punctuation: "}")
    }

    static func write(
        row: [SQLValue], shape: OutputShape, object: String, id: String?, version: String,
        children: [[String: QueryEngine.ChildResult]], related: [[String: [UInt8]]] = [], to writer: inout JSONWriter
    ) {
        writer.write(punctuation: "{")
        writeAttributes(object: object, id: id, version: version, to: &writer)
        writeMembers(row: row, shape: shape, id: id, version: version, children: children, related: related, to: &writer)
        writer.write(punctuation: "}")
    }

    private static func writeMembers(
        row: [SQLValue], shape: OutputShape, id: String?, version: String,
        children: [[String: QueryEngine.ChildResult]], related: [[String: [UInt8]]] = [], to writer: inout JSONWriter
    ) {
        for member in shape.members {
            writer.write(punctuation: ",")
            switch member {
            case .field(let name, let type, let column):
                writer.writeKey(name)
                FieldCodec.write(row[column], for: type, to: &writer)
            case .formatted(let name, let type, let column):
                writer.writeKey(name)
                writer.write(ValueFormat.json(row[column], for: type))
            case .parent(let name, let object, let idColumn, let parentShape):
                writer.writeKey(name)
                guard let parentId = row[idColumn].text else {
                    writer.write(.null)
                    continue
                }
                writer.write(punctuation: "{")
                writeAttributes(object: object, id: parentId, version: version, to: &writer)
                writeMembers(row: row, shape: parentShape, id: parentId, version: version, children: [], to: &writer)
                writer.write(punctuation: "}")
            case .related(let name, let idColumn, let index):
                writer.writeKey(name)
                guard let relatedId = row[idColumn].text, index < related.count, let record = related[index][relatedId] else {
                    writer.write(.null)
                    continue
                }
                writer.writeRaw(record)
            case .children(let name, let subquery):
                writer.writeKey(name)
                guard let id, let entry = children[subquery][id], entry.total > 0 else {
                    writer.write(.null)
                    continue
                }
                writer.write(punctuation: "{")
                writer.writeKey("totalSize")
                writer.write(.int(Int64(entry.total)))
                writer.write(punctuation: ",")
                writer.writeKey("done")
                writer.write(.bool(entry.next == nil))
                writer.write(punctuation: ",")
                if let next = entry.next {
                    writer.writeKey("nextRecordsUrl")
                    writer.writeString(next)
                    writer.write(punctuation: ",")
                }
                writer.writeKey("records")
                writer.write(punctuation: "[")
                writer.writeRaw(entry.records)
                writer.write(punctuation: "]")
                writer.write(punctuation: "}")
            }
        }
    }
}
