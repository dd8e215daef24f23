/// A check of one value that yields a message when the value fails, such as `must not be empty`.
///
/// Rules are values: combine the built-in ones (``required()``, ``notEmpty``, ``range(_:)``, ``length(_:)``,
/// ``matches(_:_:)``, ``pattern(_:)``, ``oneOf(_:)``) or write your own with ``custom(_:_:)``, and attach them to
/// fields with ``Validation/field(_:_:_:)``.
public struct ValidationRule<Value>: Sendable {
    private let check: @Sendable (Value) -> String?

    /// A rule from a function that returns the failure message, or `nil` when the value passes.
    public init(_ check: @escaping @Sendable (Value) -> String?) {
        self.check = check
    }

    /// The failure message for `value`, or `nil` when it passes.
    public func failure(for value: Value) -> String? {
        check(value)
    }

    /// A rule that passes when `isValid` returns `true` and otherwise fails with `message`.
    public static func custom(_ message: String, _ isValid: @escaping @Sendable (Value) -> Bool) -> Self {
        ValidationRule { isValid($0) ? nil : message }
    }
}

extension ValidationRule where Value: Collection & SendableMetatype {
    /// Fails with `must not be empty` for an empty string or collection.
    public static var notEmpty: Self {
        ValidationRule { $0.isEmpty ? "must not be empty" : nil }
    }

    /// Fails unless the count (characters for strings) lies in `range`.
    public static func length(_ range: ClosedRange<Int>) -> Self {
        ValidationRule { value in
            let count = value.count
            if range.contains(count) { return nil }
            if range.lowerBound == range.upperBound {
                return "must have a length of \(range.lowerBound), not \(count)"
            }
            return "must have a length between \(range.lowerBound) and \(range.upperBound), not \(count)"
        }
    }

    /// Fails unless the count (characters for strings) is at least `minimum` and at most `maximum`.
    public static func length(min minimum: Int = 0, max maximum: Int = .max) -> Self {
        ValidationRule { value in
            let count = value.count
            if count < minimum { return "must have a length of at least \(minimum), not \(count)" }
            if count > maximum { return "must have a length of at most \(maximum), not \(count)" }
            return nil
        }
    }
}

extension ValidationRule where Value: Comparable & Sendable {
    /// Fails unless the value lies in `range`.
    public static func range(_ range: ClosedRange<Value>) -> Self {
        ValidationRule { value in
            range.contains(value) ? nil : "must be between \(range.lowerBound) and \(range.upperBound), not \(value)"
        }
    }

    /// Fails when the value is below `minimum`.
    public static func atLeast(_ minimum: Value) -> Self {
        ValidationRule { $0 >= minimum ? nil : "must be at least \(minimum), not \($0)" }
    }

    /// Fails when the value is above `maximum`.
    public static func atMost(_ maximum: Value) -> Self {
        ValidationRule { $0 <= maximum ? nil : "must be at most \(maximum), not \($0)" }
    }
}

extension ValidationRule where Value: Equatable & Sendable {
    /// Fails unless the value is one of `allowed`.
    public static func oneOf(_ allowed: [Value]) -> Self {
        ValidationRule { value in
            allowed.contains(value) ? nil : "must be one of \(allowed.map { "\($0)" }.joined(separator: ", "))"
        }
    }
}

extension ValidationRule where Value == String {
    /// Fails unless the whole string matches `regex`; the message names `description` (for example
    /// `"an uppercase plate such as B-AB 123"`).
    public static func matches(_ regex: Regex<Substring>, _ description: String) -> Self {
        let pattern = RegexBox(regex)
        return ValidationRule { value in
            (try? pattern.regex.wholeMatch(in: value)) != nil ? nil : "must be \(description)"
        }
    }

    /// Fails unless the whole string matches the regular expression `pattern` (Swift `Regex` syntax).
    ///
    /// A pattern that does not compile fails every value with a message naming the pattern, so the mistake
    /// shows up in the first test that validates.
    public static func pattern(_ pattern: String) -> Self {
        guard let regex = try? Regex(pattern, as: Substring.self) else {
            return ValidationRule { _ in "cannot be checked: \(ModelKitText.quoted(pattern)) is not a valid pattern" }
        }
        return .matches(regex, "matching \(pattern)")
    }
}

extension ValidationRule {
    /// Fails with `is required` when an optional value is `nil`.
    public static func required<Wrapped>() -> Self where Value == Wrapped? {
        ValidationRule { $0 == nil ? "is required" : nil }
    }

    /// Applies `rule` to the wrapped value when present; `nil` passes.
    public static func ifPresent<Wrapped>(_ rule: ValidationRule<Wrapped>) -> Self where Value == Wrapped? {
        ValidationRule { value in value.flatMap { rule.failure(for: $0) } }
    }
}

/// Holds a `Regex` for use in `@Sendable` rules.
private struct RegexBox: @unchecked Sendable {
    // @unchecked Sendable: a `Regex` is an immutable value once built; matching does not mutate it, so sharing it
    // between threads is safe. (`Regex` is not declared `Sendable` because its output type might not be.)
    let regex: Regex<Substring>

    init(_ regex: Regex<Substring>) {
        self.regex = regex
    }
}
