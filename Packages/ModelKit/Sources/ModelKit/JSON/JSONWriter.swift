/// Writes ``JSONValue`` trees as UTF-8 JSON text.
struct JSONWriter {
    private let formatting: JSONValue.Formatting
    var output: [UInt8] = []

    init(formatting: JSONValue.Formatting) {
        self.formatting = formatting
        output.reserveCapacity(256)
    }

    mutating func write(_ value: JSONValue, level: Int) {
        switch value {
        case .null:
            append("null")
        case .bool(let flag):
            append(flag ? "true" : "false")
        case .integer(let number):
            append(String(number))
        case .double(let number):
            if number.isFinite {
                append(number.description)
            } else {
                append("null")
            }
        case .string(let string):
            writeString(string)
        case .array(let elements):
            writeArray(elements, level: level)
        case .object(let object):
            writeObject(object, level: level)
        }
    }

    private mutating func writeArray(_ elements: [JSONValue], level: Int) {
        guard !elements.isEmpty else {
            append("[]")
            return
        }
        output.append(UInt8(ascii: "["))
        for (position, element) in elements.enumerated() {
            if position > 0 {
                output.append(UInt8(ascii: ","))
            }
            newline(level: level + 1)
            write(element, level: level + 1)
        }
        newline(level: level)
        output.append(UInt8(ascii: "]"))
    }

    private mutating func writeObject(_ object: JSONObject, level: Int) {
        guard !object.isEmpty else {
            append("{}")
            return
        }
        output.append(UInt8(ascii: "{"))
        let keys = object.keys
        let values = object.values
        if formatting.sortsKeys {
            let order = keys.indices.sorted { keys[$0].utf8.lexicographicallyPrecedes(keys[$1].utf8) }
            for (position, member) in order.enumerated() {
                writeMember(keys[member], values[member], first: position == 0, level: level)
            }
        } else {
            // Straight from the object's storage: no array of members per object.
            for member in keys.indices {
                writeMember(keys[member], values[member], first: member == keys.startIndex, level: level)
            }
        }
        newline(level: level)
        output.append(UInt8(ascii: "}"))
    }

    private mutating func writeMember(_ key: String, _ value: JSONValue, first: Bool, level: Int) {
        if !first {
            output.append(UInt8(ascii: ","))
        }
        newline(level: level + 1)
        writeString(key)
        output.append(UInt8(ascii: ":"))
        if formatting.indentation != nil {
            output.append(UInt8(ascii: " "))
        }
        write(value, level: level + 1)
    }

    private mutating func newline(level: Int) {
        guard let indentation = formatting.indentation else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indentation * level))
    }

    mutating func append(_ text: String) {
        output.append(contentsOf: text.utf8)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    mutating func writeString(_ string: String) {
        output.append(UInt8(ascii: "\""))
        let handled: Void? = string.utf8.withContiguousStorageIfAvailable { buffer in
            var runStart = 0
            var index = 0
            while index < buffer.count {
                let byte = buffer[index]
                let needsEscape =
                    byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
                    || (byte == 0xE2 && index + 2 < buffer.count && buffer[index + 1] == 0x80
                        && (buffer[index + 2] == 0xA8 || buffer[index + 2] == 0xA9))
                if needsEscape {
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<index]))
                    if byte == 0xE2 {
                        escapeLineSeparator(buffer[index + 2])
                        index += 3
                    } else {
                        escape(byte)
                        index += 1
                    }
                    runStart = index
                } else {
                    index += 1
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<buffer.count]))
        }
        if handled == nil {
            for scalar in string.unicodeScalars {
                switch scalar.value {
                case 0x2028, 0x2029:
                    escapeLineSeparator(scalar.value == 0x2028 ? 0xA8 : 0xA9)
                case 0..<0x20, 0x22, 0x5C:
                    escape(UInt8(scalar.value))
                default:
                    output.append(contentsOf: UTF8.encode(scalar).unsafelyUnwrapped)
                }
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    private mutating func escapeLineSeparator(_ lastByte: UInt8) {
        append(lastByte == 0xA8 ? "\\u2028" : "\\u2029")
    }

    private mutating func escape(_ byte: UInt8) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        case 0x09: output.append(UInt8(ascii: "t"))
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        default:
            output.append(contentsOf: "u00".utf8)
            output.append(Self.hexDigits[Int(byte >> 4)])
            output.append(Self.hexDigits[Int(byte & 0x0F)])
        }
    }
}
