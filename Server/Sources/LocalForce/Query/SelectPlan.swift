import SOQL

/// The columns of a SELECT list and the shape that turns a row into a record.
struct SelectPlan {
    var columns: [String] = []
    let shape = OutputShape()
    /// The TYPEOF items, with their reference fields, in SELECT order.
    var typeOfs: [(typeOf: TypeOf, field: FieldDefinition, column: Int)] = []

    /// Adds the items of a SELECT list in order: fields, and `toLabel`, `FORMAT` and
    /// `convertCurrency` of fields (under their alias, or the field's name and place).
    mutating func add(_ items: [SelectItem], from: FromContext, dialect: SQLDialect) throws(SOQLError) {
        for item in items {
            switch item {
            case .field(let path): try add([path], from: from)
            case .function(let call, let alias):
                let compiled = try FunctionSQL(from: from, dialect: dialect).compile(call, context: .row)
                guard let path = call.fieldPaths.first else { throw SOQLError(.malformedQuery, "\(call) reads no field") }
                let name = alias ?? path.field
                if shape.members.contains(where: { if case .field(name, _, _) = $0 { true } else { false } }) {
                    throw SOQLError(.malformedQuery, "duplicate field selected: \(name) (give \(call) an alias)", at: path.location)
                }
                if let alias {
                    columns.append(compiled.sql)
                    shape.addField(alias, type: compiled.type, column: columns.count - 1, formatted: compiled.formatted)
                } else {
                    try add([path], from: from, column: compiled.sql, formatted: compiled.formatted)
                }
            case .typeOf(let typeOf):
                let field = try TypeOfReader.field(typeOf, of: from.object, schema: from.schema)
                columns.append("\(from.alias).\(SQLDialect.quote(field.name))")
                typeOfs.append((typeOf, field, columns.count - 1))
                shape.addRelated(field.relationshipName ?? typeOf.relationship, idColumn: columns.count - 1, index: typeOfs.count - 1)
            default: continue
            }
        }
    }

    /// Adds the fields of a SELECT list (relationship paths join through `from`); `column`
    /// replaces the field's own expression (a function of it).
    mutating func add(
        _ paths: [FieldPath], from: FromContext, column: String? = nil, formatted: Bool = false, outputName: String? = nil
    ) throws(SOQLError) {
        for path in paths {
            let resolved = try from.resolve(path)
            var shape = self.shape
            var relationships: [String] = []
            for relationship in path.relationships {
                relationships.append(relationship)
                let target = try from.relationshipTarget(relationships[...])
                let parentField = try relationshipField(relationships, from: from)
                shape = shape.parent(parentField.relationshipName ?? relationship, object: target.object.name) {
                    columns.append("\(target.alias).\"Id\"")
                    return columns.count - 1
                }
            }
            columns.append(column ?? resolved.expression)
            shape.addField(outputName ?? resolved.field.name, type: resolved.field.type, column: columns.count - 1, formatted: formatted)
        }
    }

    /// The reference field for the last relationship of a chain (for its canonical name).
    private func relationshipField(_ relationships: [String], from: FromContext) throws(SOQLError) -> FieldDefinition {
        var object = from.object
        var field: FieldDefinition?
        for relationship in relationships {
            guard let next = object.field(forRelationship: relationship),
                let target = next.referenceTo.first.flatMap({ from.schema.object(named: $0) })
            else {
                throw SOQLError(.invalidField, "Didn't understand relationship '\(relationship)' in field path.")
            }
            field = next
            object = target
        }
        guard let field else { throw SOQLError(.invalidField, "empty relationship path") }
        return field
    }
}
