import FastJSON
import SOQL

/// `TYPEOF`: the record a polymorphic relationship points to, read from the object its id
/// belongs to, with the fields of that object's `WHEN` branch (or the `ELSE` fields).
struct TypeOfReader {
    let schema: Schema
    let db: any SQLConnection

    /// Ids bound per statement.
    static let idsPerStatement = 500

    /// The reference field of a TYPEOF, once its types and fields are checked against the
    /// queried object.
    static func field(_ typeOf: TypeOf, of object: ObjectDefinition, schema: Schema) throws(SOQLError) -> FieldDefinition {
        guard let field = object.field(forRelationship: typeOf.relationship), field.type == .reference else {
            throw SOQLError(.invalidField, "Didn't understand relationship '\(typeOf.relationship)' in TYPEOF on entity '\(object.name)'")
        }
        let targets = field.referenceTo.compactMap { schema.object(named: $0) }
        for branch in typeOf.branches {
            guard let target = targets.first(where: { $0.name.lowercased() == branch.object.lowercased() }) else {
                throw SOQLError(
                    .invalidType,
                    "\(branch.object) is not a type of \(typeOf.relationship): it can be \(field.referenceTo.joined(separator: ", "))")
            }
            let from = FromContext(schema: schema, object: target, alias: "r")
            for path in branch.fields { _ = try from.resolve(path) }
        }
        if !typeOf.elseFields.isEmpty {
            for target in targets where !typeOf.branches.contains(where: { $0.object.lowercased() == target.name.lowercased() }) {
                let from = FromContext(schema: schema, object: target, alias: "r")
                for path in typeOf.elseFields { _ = try from.resolve(elsePath(path, on: target)) }
            }
        }
        return field
    }

    /// ELSE reads the fields every type has, as Salesforce's `Name` object does: `Name` is the
    /// object's name field where it has no field called Name (a Case's CaseNumber).
    static func elsePath(_ path: FieldPath, on object: ObjectDefinition) -> FieldPath {
        guard path.components.count == 1, path.field.lowercased() == "name", object.field(named: "Name") == nil,
            let nameField = object.nameField
        else { return path }
        return FieldPath([nameField.name], at: path.location)
    }

    /// Each related record as a JSON object, by id (ids of deleted or unknown records are left
    /// out: their rows show `null`).
    func related(_ typeOf: TypeOf, field: FieldDefinition, ids: Set<String>, version: String) throws(SOQLError) -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        let targets = field.referenceTo.compactMap { schema.object(named: $0) }
        for target in targets {
            let targetIds = ids.filter { $0.hasPrefix(target.keyPrefix) }.sorted()
            guard !targetIds.isEmpty else { continue }
            let branch = typeOf.branches.first { $0.object.lowercased() == target.name.lowercased() }
            let from = FromContext(schema: schema, object: target, alias: "r")
            var plan = SelectPlan()
            if let branch {
                try plan.add(branch.fields, from: from)
            } else {
                for path in typeOf.elseFields {
                    try plan.add([Self.elsePath(path, on: target)], from: from, outputName: path.components.count == 1 ? path.field : nil)
                }
            }
            let idColumn = plan.columns.count
            plan.columns.append("r.\"Id\"")
            var rows: [[SQLValue]] = []
            // In slices: a child subquery can relate more records than a statement binds.
            for start in stride(from: 0, to: targetIds.count, by: Self.idsPerStatement) {
                let arguments = SQLArguments(dialect: db.dialect)
                let slice = targetIds[start..<min(targetIds.count, start + Self.idsPerStatement)]
                let list = slice.map { arguments.bind(.text($0)) }.joined(separator: ", ")
                let sql =
                    "SELECT \(plan.columns.joined(separator: ", ")) FROM \(from.sql) WHERE r.\"IsDeleted\" = 0 AND r.\"Id\" IN (\(list))"
                do {
                    rows += try db.rows(sql, arguments.values)
                } catch {
                    throw StorageRefusal.soqlError(error)
                }
            }
            for row in rows {
                guard idColumn < row.count, let id = row[idColumn].text else { continue }
                var writer = JSONWriter(reservingCapacity: 256)
                RecordJSON.write(row: row, shape: plan.shape, object: target.name, id: id, version: version, children: [], to: &writer)
                result[id] = writer.bytes
            }
        }
        return result
    }
}
