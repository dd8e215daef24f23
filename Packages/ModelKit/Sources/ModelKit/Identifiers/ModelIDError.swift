/// Why a string is not a ``ModelID``.
public struct ModelIDError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of failure; new codes may be added.
    public struct Code: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        private enum Value: String, Sendable, CaseIterable {
            case invalidUUID = "not a UUID"
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// The text is not a UUID in the 8-4-4-4-12 hexadecimal form.
        public static let invalidUUID = Code(.invalidUUID)

        /// Every code, in declaration order.
        public static var allCases: [Code] { Value.allCases.map(Code.init) }

        /// The code's name, as written in Swift (`invalidUUID`): stable, fit for a metric label or a log field.
        public var name: String { String(describing: value) }

        /// The code's name, as ``name``.
        public var description: String { name }

        /// A short phrase for people, used in the error's description.
        var phrase: String { value.rawValue }
    }

    /// What went wrong.
    public let code: Code

    /// The code's name (`invalidUUID`), bounded and stable: fit for a metric label or a log field.
    public var shortDescription: String { code.name }

    /// The rejected text, cut to 40 characters.
    public let text: String

    init(_ code: Code, text: String) {
        self.code = code
        self.text = ModelKitText.truncated(text)
    }

    /// `expected a UUID such as 0190f5c2-7a4b-7c3d-9e1f-2a3b4c5d6e7f, found "…"`.
    public var description: String {
        "expected a UUID such as 0190f5c2-7a4b-7c3d-9e1f-2a3b4c5d6e7f, found \(ModelKitText.quoted(text))"
    }
}
