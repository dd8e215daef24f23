/// A named, ordered step of a model's history. A store records the names it has applied.
public struct Migration: Sendable, Hashable {
    /// The unique name, recorded in the store once applied.
    public let name: String
    /// The schema changes, applied in order in one transaction.
    public let steps: [MigrationStep]

    public init(_ name: String, steps: [MigrationStep]) {
        self.name = name
        self.steps = steps
    }
}
