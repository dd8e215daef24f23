/// Names ordered by how near they are to `target`: Levenshtein distance over lowercased characters, ties in the
/// order given. At most `limit` names.
func nearestByEditDistance(to target: String, among names: [String], limit: Int) -> [String] {
    let wanted = Array(target.lowercased())
    let scored = names.enumerated().map { index, name in
        (distance: levenshtein(Array(name.lowercased()), wanted), index: index, name: name)
    }
    return scored.sorted { ($0.distance, $0.index) < ($1.distance, $1.index) }.prefix(limit).map(\.name)
}

/// The number of single-character insertions, deletions and substitutions that turn `a` into `b`.
func levenshtein(_ a: [Character], _ b: [Character]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
            current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}
