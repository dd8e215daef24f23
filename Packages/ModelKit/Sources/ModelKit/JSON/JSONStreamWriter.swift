/// Writes compact JSON straight into bytes, member by member, for hot paths where building a ``JSONValue`` tree
/// first would cost more than the writing: a server answering with thousands of records a second.
///
/// Strings are escaped exactly as ``JSONValue/formatted(_:)`` escapes them, so a writer that emits the members of
/// a `Codable` value in sorted key order produces the bytes ``ModelCoding/encode(_:)`` produces.
///
/// ```swift
/// var writer = JSONStreamWriter()
/// writer.beginObject()
/// writer.key("plate")
/// writer.string("AB-123")
/// writer.key("modelYear")
/// writer.integer(2021)
/// writer.endObject()
/// String(decoding: writer.bytes, as: UTF8.self)  // {"plate":"AB-123","modelYear":2021}
/// ```
///
/// The writer does not check the structure: keys belong inside objects, one value after each key, every begin
/// matched by an end.
public struct JSONStreamWriter: Sendable {
    private var writer = JSONWriter(formatting: .compact)
    private var needsComma = false

    /// An empty writer with room for `capacity` bytes.
    public init(capacity: Int = 256) {
        writer.output.reserveCapacity(capacity)
    }

    /// What has been written.
    public var bytes: [UInt8] { writer.output }

    /// Starts an object (`{`).
    public mutating func beginObject() {
        separate()
        writer.output.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Ends the current object (`}`).
    public mutating func endObject() {
        writer.output.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Starts an array (`[`).
    public mutating func beginArray() {
        separate()
        writer.output.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Ends the current array (`]`).
    public mutating func endArray() {
        writer.output.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes a member name; the next value written is its value.
    public mutating func key(_ name: String) {
        separate()
        writer.writeString(name)
        writer.output.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes a string value.
    public mutating func string(_ value: String) {
        separate()
        writer.writeString(value)
        needsComma = true
    }

    /// Writes an integer value.
    public mutating func integer(_ value: some BinaryInteger) {
        separate()
        if let value = Int64(exactly: value) {
            writeDigits(value)
        } else {
            writer.append(String(value))
        }
        needsComma = true
    }

    /// Writes the decimal digits of `value` without making a `String` first.
    private mutating func writeDigits(_ value: Int64) {
        if value < 0 { writer.output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // 20 digits hold every UInt64.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            writer.output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    /// Writes `true` or `false`.
    public mutating func bool(_ value: Bool) {
        separate()
        writer.append(value ? "true" : "false")
        needsComma = true
    }

    /// Writes `null`.
    public mutating func null() {
        separate()
        writer.append("null")
        needsComma = true
    }

    /// Writes any ``JSONValue`` as ``JSONValue/formatted(_:)`` would, compactly.
    public mutating func value(_ value: JSONValue) {
        separate()
        writer.write(value, level: 0)
        needsComma = true
    }

    private mutating func separate() {
        if needsComma {
            writer.output.append(UInt8(ascii: ","))
        }
    }
}
