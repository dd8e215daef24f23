/// Carries a value Swift cannot prove `Sendable` across a boundary.
///
/// Used in two places only, each safe for its own reason:
/// - key paths built from stored properties (no captured subscript arguments): immutable once created, so
///   sharing one between threads is safe even though the standard library does not say so;
/// - the caller's closures and results in the `…AndWait` forms: the calling thread is blocked until the
///   operation finishes, so a closure runs on one thread at a time and never outlives the call, and a result is
///   handed over exactly once, after the operation is done with it.
@usableFromInline
struct UncheckedSendable<Value>: @unchecked Sendable {
    @usableFromInline let value: Value

    @inlinable
    init(_ value: Value) {
        self.value = value
    }
}
