/// One declarative check of a `Root` value: a field with rules, a nested model, each element of an array, or
/// a check across fields.
///
/// Declare a model's checks as a list in ``Validatable/validations``:
///
/// ```swift
/// extension Vehicle: Validatable {
///     static let validations: [Validation<Vehicle>] = [
///         .field("plate", \.plate, .notEmpty, .length(max: 12)),
///         .field("modelYear", \.modelYear, .range(1886...2100)),
///         .nested("owner", \.owner),
///         .each("services", \.services),
///     ]
/// }
/// ```
public struct Validation<Root>: Sendable {
    private let run: @Sendable (Root, inout [ValidationFailure]) -> Void

    private init(_ run: @escaping @Sendable (Root, inout [ValidationFailure]) -> Void) {
        self.run = run
    }

    /// Appends the failures of `root` to `failures`, with paths relative to `root`.
    func collect(_ root: Root, into failures: inout [ValidationFailure]) {
        run(root, &failures)
    }

    /// Applies `rules` to the field at `keyPath`, reporting failures under `name`.
    public static func field<Value>(
        _ name: String,
        _ keyPath: any KeyPath<Root, Value> & Sendable,
        _ rules: ValidationRule<Value>...
    ) -> Self {
        Validation { root, failures in
            let value = root[keyPath: keyPath]
            for rule in rules {
                if let message = rule.failure(for: value) {
                    failures.append(ValidationFailure(path: name, message: message))
                }
            }
        }
    }

    /// Validates the nested model at `keyPath`, prefixing its failures' paths with `name` (`owner.name`).
    public static func nested<Child: Validatable>(
        _ name: String,
        _ keyPath: any KeyPath<Root, Child> & Sendable
    ) -> Self {
        Validation { root, failures in
            for failure in root[keyPath: keyPath].validationFailures {
                failures.append(failure.prefixed(with: name))
            }
        }
    }

    /// Validates the optional nested model at `keyPath` when present; `nil` passes (add `required()`
    /// with ``field(_:_:_:)`` to forbid it).
    public static func nested<Child: Validatable>(
        _ name: String,
        _ keyPath: any KeyPath<Root, Child?> & Sendable
    ) -> Self {
        Validation { root, failures in
            guard let child = root[keyPath: keyPath] else { return }
            for failure in child.validationFailures {
                failures.append(failure.prefixed(with: name))
            }
        }
    }

    /// Validates every element of the array at `keyPath`, reporting paths such as `vehicles[2].plate`.
    public static func each<Element: Validatable>(
        _ name: String,
        _ keyPath: any KeyPath<Root, [Element]> & Sendable
    ) -> Self {
        Validation { root, failures in
            for (index, element) in root[keyPath: keyPath].enumerated() {
                for failure in element.validationFailures {
                    failures.append(failure.prefixed(with: "\(name)[\(index)]"))
                }
            }
        }
    }

    /// Applies `rules` to every element of the array at `keyPath`, reporting paths such as `tags[2]`.
    public static func each<Element>(
        _ name: String,
        _ keyPath: any KeyPath<Root, [Element]> & Sendable,
        _ rules: ValidationRule<Element>...
    ) -> Self {
        Validation { root, failures in
            for (index, element) in root[keyPath: keyPath].enumerated() {
                for rule in rules {
                    if let message = rule.failure(for: element) {
                        failures.append(ValidationFailure(path: "\(name)[\(index)]", message: message))
                    }
                }
            }
        }
    }

    /// A check across fields: `check` returns a failure message or `nil`; the failure is reported under `path`
    /// (empty for the value itself).
    public static func custom(_ path: String = "", _ check: @escaping @Sendable (Root) -> String?) -> Self {
        Validation { root, failures in
            if let message = check(root) {
                failures.append(ValidationFailure(path: path, message: message))
            }
        }
    }
}
