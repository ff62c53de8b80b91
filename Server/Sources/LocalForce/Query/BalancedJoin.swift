/// Joins SQL operands with `AND` or `OR` as a balanced tree of parenthesised pairs.
///
/// A flat chain `a OR b OR c …` parses into an expression tree as deep as it is long, and SQL
/// engines refuse deep trees (SQLite stops at 1000 levels, PostgreSQL at its stack depth). Pairing
/// operands level by level keeps the depth at log2(n) whatever the number of operands; the loop
/// is iterative, so no input length reaches the stack either.
func balancedJoin(_ operands: [String], _ joiner: String) -> String {
    guard !operands.isEmpty else { return joiner == "AND" ? "1 = 1" : "1 = 0" }
    var level = operands
    while level.count > 1 {
        var next: [String] = []
        next.reserveCapacity((level.count + 1) / 2)
        var index = 0
        while index + 1 < level.count {
            next.append("(\(level[index]) \(joiner) \(level[index + 1]))")
            index += 2
        }
        if index < level.count { next.append(level[index]) }
        level = next
    }
    return level.first.map { "(\($0))" } ?? ""
}
