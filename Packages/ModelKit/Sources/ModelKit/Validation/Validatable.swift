/// A value that declares its validation rules.
///
/// List the checks in ``validations``; ``validate()`` runs all of them and throws one ``ValidationError``
/// holding every failure, each with its field path (`vehicles[2].plate: must not be empty`), not just the
/// first.
///
/// The protocol refines `SendableMetatype` because the stored, `Sendable` ``Validation`` values of a parent call
/// the child type's static ``validations`` from any thread.
public protocol Validatable: SendableMetatype {
    /// The checks, run in order.
    static var validations: [Validation<Self>] { get }
}

extension Validatable {
    /// Every failure of this value, in declaration order; empty when the value is valid.
    public var validationFailures: [ValidationFailure] {
        var failures: [ValidationFailure] = []
        for validation in Self.validations {
            validation.collect(self, into: &failures)
        }
        return failures
    }

    /// Whether the value passes every check.
    public var isValid: Bool {
        validationFailures.isEmpty
    }

    /// Runs every check.
    ///
    /// - Throws: ``ValidationError`` listing all failures.
    public func validate() throws(ValidationError) {
        let failures = validationFailures
        if !failures.isEmpty {
            throw ValidationError(.validationFailed, failures: failures)
        }
    }
}
