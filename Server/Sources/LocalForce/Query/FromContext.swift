import SOQL

/// The FROM clause of one SELECT: the queried object under an alias, and the LEFT JOINs that
/// relationship paths (`Account.Owner.Name`) need, created on demand and shared.
final class FromContext {
    let schema: Schema
    let object: ObjectDefinition
    let alias: String
    private let aliasPrefix: String
    private var joins: [String: (alias: String, object: ObjectDefinition)] = [:]
    private(set) var joinClauses: [String] = []

    init(schema: Schema, object: ObjectDefinition, alias: String) {
        self.schema = schema
        self.object = object
        self.alias = alias
        self.aliasPrefix = alias + "_"
    }

    var sql: String {
        ([SQLDialect.quote(object.name) + " " + alias] + joinClauses).joined(separator: " ")
    }

    /// A resolved field path: the SQL expression reading it and its definition.
    struct Resolved {
        var expression: String
        var field: FieldDefinition
        /// The alias of the table the field lives on.
        var tableAlias: String
        var tableObject: ObjectDefinition
    }

    /// Resolves a path, joining through each relationship.
    func resolve(_ path: FieldPath) throws(SOQLError) -> Resolved {
        var currentAlias = alias
        var currentObject = object
        var key = ""
        for relationship in path.relationships {
            guard let field = currentObject.field(forRelationship: relationship),
                let target = field.referenceTo.first.flatMap({ schema.object(named: $0) })
            else {
                throw SOQLError(
                    .invalidField,
                    "Didn't understand relationship '\(relationship)' in field path. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name. Please reference your WSDL or the describe call for the appropriate names.",
                    at: path.location)
            }
            // A polymorphic relationship (Task.What) points to several objects: which one holds
            // the field depends on each record. TYPEOF reads them; a plain path would read the
            // first object only and answer null for the others, so it is refused.
            guard field.referenceTo.count == 1 else {
                throw SOQLError(
                    .invalidField,
                    "\(relationship) is polymorphic (\(field.referenceTo.joined(separator: ", "))): read its fields with TYPEOF \(relationship) WHEN … THEN … END",
                    at: path.location)
            }
            key += "." + field.name
            if let existing = joins[key] {
                currentAlias = existing.alias
                currentObject = existing.object
                continue
            }
            let joinAlias = aliasPrefix + String(joins.count + 1)
            joins[key] = (joinAlias, target)
            joinClauses.append(
                "LEFT JOIN \(SQLDialect.quote(target.name)) \(joinAlias) ON \(joinAlias).\"Id\" = \(currentAlias).\(SQLDialect.quote(field.name))"
            )
            currentAlias = joinAlias
            currentObject = target
        }
        guard let field = currentObject.field(named: path.field) else {
            throw SOQLError(
                .invalidField,
                "No such column '\(path.field)' on entity '\(currentObject.name)'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names.",
                at: path.location)
        }
        return Resolved(
            expression: "\(currentAlias).\(SQLDialect.quote(field.name))", field: field, tableAlias: currentAlias,
            tableObject: currentObject)
    }

    /// The alias and object reached by a chain of relationship names (for nested output).
    func relationshipTarget(_ relationships: ArraySlice<String>) throws(SOQLError) -> (alias: String, object: ObjectDefinition) {
        let resolved = try resolve(FieldPath(Array(relationships) + ["Id"]))
        return (resolved.tableAlias, resolved.tableObject)
    }
}
