/// Names near a mistyped one, for "did you mean …?" messages.
///
/// LocatorKit's own miss diagnostics (``LocatorError/candidates``) use it; so can anything that names services,
/// commands or options and wants to suggest the one that was meant, without a copy of its own.
///
/// ```swift
/// NearestNames.closest(to: "prot", among: ["port", "host"])          // "port"
/// NearestNames.ordered(by: "SQLITE", among: ["Memory", "sqlite"], limit: 1)  // ["sqlite"]
/// ```
public enum NearestNames {
    /// The Levenshtein distance between two strings: the number of single-character insertions, deletions and
    /// substitutions that turn one into the other.
    ///
    /// With `limit`, a pair whose lengths differ by more than `limit` returns `limit + 1` at once, without
    /// computing: the distance is at least the difference in length.
    public static func distance(_ lhs: String, _ rhs: String, limit: Int = .max) -> Int {
        let left = Array(lhs)
        let right = Array(rhs)
        if limit < .max, abs(left.count - right.count) > limit { return limit + 1 }
        guard !left.isEmpty else { return right.count }
        guard !right.isEmpty else { return left.count }
        var previous = Array(0...right.count)
        var current = [Int](repeating: 0, count: right.count + 1)
        for (i, leftCharacter) in left.enumerated() {
            current[0] = i + 1
            for (j, rightCharacter) in right.enumerated() {
                let substitution = previous[j] + (leftCharacter == rightCharacter ? 0 : 1)
                current[j + 1] = Swift.min(previous[j + 1] + 1, current[j] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[right.count]
    }

    /// `names` ordered by their distance to `target`, compared without case, ties in the order given; at most
    /// `limit` of them.
    public static func ordered(by target: String, among names: [String], limit: Int) -> [String] {
        let wanted = target.lowercased()
        let scored = names.enumerated().map { index, name in
            (distance: distance(name.lowercased(), wanted), index: index, name: name)
        }
        return scored.sorted { ($0.distance, $0.index) < ($1.distance, $1.index) }.prefix(limit).map(\.name)
    }

    /// The name in `names` nearest to `typed` (compared without case) by edit distance, at most two edits or a third
    /// of the typed name's length; else the one name that begins with `typed` or that `typed` begins with (three
    /// characters or more); `nil` when none is close.
    public static func closest(to typed: String, among names: [String]) -> String? {
        let typed = typed.lowercased()
        let limit = Swift.max(2, typed.count / 3)
        let scored = names.map { (name: $0, distance: distance(typed, $0)) }
        if let best = scored.filter({ $0.distance <= limit }).min(by: { $0.distance < $1.distance }) {
            return best.name
        }
        let extended = names.filter { name in
            typed.count >= 3 && name.count >= 3 && (name.hasPrefix(typed) || typed.hasPrefix(name))
        }
        return extended.count == 1 ? extended[0] : nil
    }
}
