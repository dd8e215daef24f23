/// The known name closest to a mistyped one, for the "did you mean …?" of fleetd's and fleet's option errors.
public enum NearestName {
    /// The name in `names` nearest to `typed` by edit distance (at most two edits, or a third of the typed name's
    /// length), else the one name that begins with `typed` or that `typed` begins with (three characters or more);
    /// `nil` when none is close.
    public static func closest(to typed: String, among names: [String]) -> String? {
        let typed = typed.lowercased()
        let limit = max(2, typed.count / 3)
        let scored = names.map { (name: $0, distance: distance(typed, $0)) }
        if let best = scored.filter({ $0.distance <= limit }).min(by: { $0.distance < $1.distance }) {
            return best.name
        }
        let extended = names.filter { name in
            typed.count >= 3 && name.count >= 3 && (name.hasPrefix(typed) || typed.hasPrefix(name))
        }
        return extended.count == 1 ? extended[0] : nil
    }

    /// The Levenshtein distance: insertions, deletions and substitutions of characters.
    public static func distance(_ left: String, _ right: String) -> Int {
        let left = Array(left)
        let right = Array(right)
        guard !left.isEmpty else { return right.count }
        guard !right.isEmpty else { return left.count }
        var previous = Array(0...right.count)
        var current = [Int](repeating: 0, count: right.count + 1)
        for (i, leftCharacter) in left.enumerated() {
            current[0] = i + 1
            for (j, rightCharacter) in right.enumerated() {
                let substitution = previous[j] + (leftCharacter == rightCharacter ? 0 : 1)
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[right.count]
    }
}
