/// "Did you mean" for a name typed wrong: the closest known name, when it is close enough.
enum Suggestion {
    /// The known name closest to `typed` (case ignored), if at most a third of its letters (and
    /// at least one) differ; nil when none is that close.
    static func closest(to typed: String, in known: [String]) -> String? {
        let lowered = Array(typed.lowercased())
        let limit = max(1, lowered.count / 3)
        var best: (name: String, distance: Int)?
        for name in known {
            let distance = Self.distance(lowered, Array(name.lowercased()), limit: limit)
            if distance <= limit, distance < best?.distance ?? .max { best = (name, distance) }
        }
        return best?.name
    }

    /// `typed` is not among `known`: the sentence that says so, with the known names (the first
    /// `shown` of them) and the closest one.
    static func unknown(_ what: String, _ typed: String, known: [String], shown limit: Int = 10) -> String {
        var text = "no \(what) named \(typed)"
        if let close = closest(to: typed, in: known) { text += "; did you mean \(close)?" }
        if !known.isEmpty {
            let shown = known.prefix(limit).joined(separator: ", ")
            text += " (\(what)s: \(shown)\(known.count > limit ? ", …" : ""))"
        }
        return text
    }

    /// The edit distance of two names, counted up to `limit + 1` (names that differ in length
    /// by more than `limit` are that far apart at once): linear memory, bounded work.
    private static func distance(_ a: [Character], _ b: [Character], limit: Int) -> Int {
        guard abs(a.count - b.count) <= limit, a.count <= 256, b.count <= 256 else { return limit + 1 }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
