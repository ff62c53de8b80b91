import FastJSON
import SalesforceWire

extension LocalForce {
    /// Records one tree request may create at most, all levels together.
    static let maximumTreeRecords = 200
    /// Levels of a tree at most (a record, its children, theirs…).
    static let maximumTreeDepth = 5

    private struct TreeNode {
        var object: ObjectDefinition
        var referenceId: String
        var fields: [String: JSONValue]
        /// The parent's index in creation order and the field that points at it.
        var parent: (index: Int, field: String)?
    }

    /// Thrown inside the transaction to roll the whole tree back.
    private struct TreeFailure: Error {
        var referenceId: String
        var error: APIError
    }

    /// `POST /composite/tree/{T}`: records of `T` with nested child records, created in one
    /// transaction (all or none); answers each record's reference id and new id, or the
    /// failing record's errors.
    func tree(_ context: RequestContext) async throws -> APIResponse {
        guard context.request.method == "POST" else {
            throw APIError(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(context.request.method)' not allowed. Allowed are POST")
        }
        guard context.path.count == 3, let root = schema.object(named: context.path[2]) else { throw APIError.notFound }
        let nodes = try treeNodes(try context.request.jsonObject(), root: root)
        let (schema, userId, clock) = (self.schema, requestUserId(), requestClock())
        let source = captureSource(version: context.version, userId: userId, clock: clock)
        do {
            let ids = try await database.write(capturing: source) { db, capture -> [String] in
                let writer = RecordWriter(schema: schema, db: db, userId: userId, clock: clock, capture: capture)
                var ids: [String] = []
                for node in nodes {
                    var fields = node.fields
                    // Parents come first in `nodes`, so a parent's id is always there.
                    if let parent = node.parent, parent.index < ids.count { fields[parent.field] = .string(ids[parent.index]) }
                    do {
                        ids.append(try writer.create(node.object, body: fields).value)
                    } catch let error as APIError {
                        throw TreeFailure(referenceId: node.referenceId, error: error)
                    }
                }
                return ids
            }
            let results: [JSONValue] = zip(nodes, ids).map { ["referenceId": .string($0.referenceId), "id": .string($1)] }
            return .json(["hasErrors": false, "results": .array(results)], status: 201)
        } catch let failure as TreeFailure {
            return .json(
                [
                    "hasErrors": true,
                    "results": [["referenceId": .string(failure.referenceId), "errors": [failure.error.saveResultJSON]]],
                ], status: 400)
        }
    }

    /// The tree's records in creation order (each parent before its children), checked:
    /// types, reference ids, child relationships, depth and count.
    private func treeNodes(_ body: [String: JSONValue], root: ObjectDefinition) throws(APIError) -> [TreeNode] {
        guard case .array(let top)? = body["records"] else { throw APIError(400, "JSON_PARSER_ERROR", "records is required") }
        var nodes: [TreeNode] = []
        var referenceIds: Set<String> = []
        // A worklist, children pushed in reverse so they pop in order: parents come first.
        var work: [(record: JSONValue, object: ObjectDefinition, depth: Int, parent: (index: Int, field: String)?)] =
            top.reversed().map { ($0, root, 1, nil) }
        while let (record, object, depth, parent) = work.popLast() {
            guard case .object(var fields) = record, let attributes = fields["attributes"] else {
                throw APIError(400, "INVALID_INPUT", "Each record must be an object with attributes")
            }
            guard let type = attributes["type"]?.stringValue, type.lowercased() == object.name.lowercased() else {
                throw APIError(400, "INVALID_INPUT", "Each record of this level must have attributes.type \(object.name)")
            }
            guard let referenceId = attributes["referenceId"]?.stringValue, !referenceId.isEmpty,
                referenceId.count <= 80, referenceId.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
            else {
                throw APIError(400, "INVALID_INPUT", "Each record needs a referenceId of letters, digits and underscores")
            }
            guard referenceIds.insert(referenceId).inserted else {
                throw APIError(400, "INVALID_INPUT", "Duplicate ReferenceId provided in the request: \(referenceId)")
            }
            guard nodes.count < Self.maximumTreeRecords else {
                throw APIError(400, "LIMIT_EXCEEDED", "A tree request creates at most \(Self.maximumTreeRecords) records")
            }
            fields["attributes"] = nil
            var children: [(JSONValue, ObjectDefinition, (index: Int, field: String))] = []
            let index = nodes.count
            for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
                guard case .object(let nested) = value, let relationship = schema.childRelationship(name, of: object.name),
                    let child = schema.object(named: relationship.childObject)
                else { continue }
                guard depth < Self.maximumTreeDepth else {
                    throw APIError(400, "INVALID_INPUT", "A tree has \(Self.maximumTreeDepth) levels at most")
                }
                guard case .array(let records)? = nested["records"] else {
                    throw APIError(400, "INVALID_INPUT", "The child relationship \(name) needs records")
                }
                fields[name] = nil
                children += records.map { ($0, child, (index, relationship.field)) }
            }
            nodes.append(TreeNode(object: object, referenceId: referenceId, fields: fields, parent: parent))
            work += children.reversed().map { ($0.0, $0.1, depth + 1, $0.2) }
        }
        return nodes
    }
}
