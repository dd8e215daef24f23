/// Carries a value Swift cannot prove `Sendable` across a boundary.
///
/// Used only for key paths built from stored properties (no captured subscript arguments): they are immutable
/// once created, so sharing one between threads is safe even though the standard library does not say so.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
