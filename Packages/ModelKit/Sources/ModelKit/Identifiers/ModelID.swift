public import Foundation

/// A typed, time-ordered identifier for values of `Owner`.
///
/// `ModelID<Vehicle>` and `ModelID<Driver>` are different types, so one cannot be passed where the other is
/// expected, yet both are a plain UUID underneath: they encode as a lowercase UUID string
/// (`"0190f5c2-7a4b-7c3d-9e1f-2a3b4c5d6e7f"`) and parse from one.
///
/// ``init()`` generates a version 7 UUID (RFC 9562): a 48-bit Unix timestamp in milliseconds, the version and
/// variant bits, and 74 random bits. Within one process, generated identifiers strictly increase, even within
/// one millisecond and even if the wall clock steps back, so new identifiers sort by creation time both as
/// values (``ModelID`` is `Comparable`) and as their lowercase strings.
///
/// ```swift
/// let first = ModelID<Vehicle>()
/// let second = ModelID<Vehicle>()
/// first < second                     // true
/// try ModelID<Vehicle>(parsing: first.uuidString) == first  // true
/// ```
public struct ModelID<Owner>: Sendable, Hashable {
    /// The UUID underneath.
    public let uuid: UUID

    /// Generates a new time-ordered identifier (UUID version 7), greater than every identifier this process has
    /// generated before.
    public init() {
        uuid = UUIDv7Generator.shared.next()
    }

    /// Wraps an existing UUID of any version.
    public init(uuid: UUID) {
        self.uuid = uuid
    }

    /// Parses a UUID string in the canonical 8-4-4-4-12 form, in upper or lower case.
    ///
    /// - Throws: ``ModelIDError`` when the text is not a UUID.
    public init(parsing text: String) throws(ModelIDError) {
        guard let uuid = Self.parse(text.utf8) else {
            throw ModelIDError(.invalidUUID, text: text)
        }
        self.uuid = uuid
    }

    /// The canonical 8-4-4-4-12 form, hex digits in either case. Written by hand: Foundation's `UUID(uuidString:)`
    /// goes through `sscanf` on Linux, and servers parse an ID out of most request paths.
    private static func parse(_ text: String.UTF8View) -> UUID? {
        guard text.count == 36 else { return nil }
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed: Bool = withUnsafeMutableBytes(of: &bytes) { output in
            var written = 0
            var high: UInt8?
            for (position, character) in text.enumerated() {
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    guard character == UInt8(ascii: "-") else { return false }
                    continue
                }
                let nibble: UInt8
                switch character {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character &- UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character &- UInt8(ascii: "a") &+ 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character &- UInt8(ascii: "A") &+ 10
                default: return false
                }
                if let first = high {
                    output[written] = first << 4 | nibble
                    written += 1
                    high = nil
                } else {
                    high = nibble
                }
            }
            return written == 16
        }
        return parsed ? UUID(uuid: bytes) : nil
    }

    /// The lowercase canonical string form, such as `0190f5c2-7a4b-7c3d-9e1f-2a3b4c5d6e7f`.
    public var uuidString: String {
        // Written by hand: Foundation's `uuidString` formats each byte through `sprintf` on Linux, then the text
        // is lower-cased in a second pass; IDs are written into every JSON body, so this is a hot path.
        withUnsafeBytes(of: uuid.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                let digits: StaticString = "0123456789abcdef"
                var index = 0
                for (position, byte) in bytes.enumerated() {
                    if position == 4 || position == 6 || position == 8 || position == 10 {
                        text[index] = UInt8(ascii: "-")
                        index += 1
                    }
                    digits.withUTF8Buffer { hex in
                        text[index] = hex[Int(byte >> 4)]
                        text[index + 1] = hex[Int(byte & 0x0F)]
                    }
                    index += 2
                }
                return index
            }
        }
    }

    /// The identifier with the same UUID, typed for another owner, for example to carry the identifier of a
    /// canonical model into a versioned representation.
    public func retyped<Other>(as _: Other.Type = Other.self) -> ModelID<Other> {
        ModelID<Other>(uuid: uuid)
    }

    /// The creation time embedded in a version 7 identifier, to the millisecond; `nil` for other UUID versions.
    public var timestamp: Date? {
        let bytes = uuid.uuid
        guard bytes.6 >> 4 == 7 else { return nil }
        let milliseconds =
            UInt64(bytes.0) << 40 | UInt64(bytes.1) << 32 | UInt64(bytes.2) << 24
            | UInt64(bytes.3) << 16 | UInt64(bytes.4) << 8 | UInt64(bytes.5)
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
