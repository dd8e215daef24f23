/// Why a string is not a ``ModelID``.
public struct ModelIDError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of failure; new kinds may be added.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Code: String, Sendable {
            case invalidUUID = "not a UUID"
        }

        private let code: Code

        private init(_ code: Code) {
            self.code = code
        }

        /// The text is not a UUID in the 8-4-4-4-12 hexadecimal form.
        public static let invalidUUID = Kind(.invalidUUID)

        /// A short phrase naming the kind.
        public var description: String { code.rawValue }
    }

    /// What went wrong.
    public let kind: Kind
    /// The rejected text, cut to 40 characters.
    public let text: String

    init(_ kind: Kind, text: String) {
        self.kind = kind
        self.text = ModelKitText.truncated(text)
    }

    /// `expected a UUID such as 0190f5c2-7a4b-7c3d-9e1f-2a3b4c5d6e7f, found "…"`.
    public var description: String {
        "expected a UUID such as 0190f5c2-7a4b-7c3d-9e1f-2a3b4c5d6e7f, found \(ModelKitText.quoted(text))"
    }
}
