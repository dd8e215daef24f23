import Foundation
import ModelKit
import ModelKitTesting
import Testing

struct JSONStreamWriterTests {
    /// Writes `value` through the stream API member by member (not through `value(_:)`).
    private func stream(_ value: JSONValue, into writer: inout JSONStreamWriter) {
        switch value {
        case .null: writer.null()
        case .bool(let flag): writer.bool(flag)
        case .integer(let number): writer.integer(number)
        case .double: writer.value(value)
        case .string(let text): writer.string(text)
        case .array(let elements):
            writer.beginArray()
            for element in elements { stream(element, into: &writer) }
            writer.endArray()
        case .object(let object):
            writer.beginObject()
            for (key, member) in object {
                writer.key(key)
                stream(member, into: &writer)
            }
            writer.endObject()
        }
    }

    @Test func streamedJSONIsByteForByteWhatFormattedWrites() {
        var generator = SeededGenerator(seed: 0x57_2EA7)
        for _ in 0..<300 {
            let value = RandomJSON.value(using: &generator)
            var writer = JSONStreamWriter()
            stream(value, into: &writer)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == value.formatted())
        }
    }

    @Test func theDocumentationExample() {
        var writer = JSONStreamWriter()
        writer.beginObject()
        writer.key("plate")
        writer.string("AB-123")
        writer.key("modelYear")
        writer.integer(2021)
        writer.key("tags")
        writer.beginArray()
        writer.string("a\"b")
        writer.null()
        writer.bool(true)
        writer.endArray()
        writer.endObject()
        #expect(
            String(decoding: writer.bytes, as: UTF8.self)
                == #"{"plate":"AB-123","modelYear":2021,"tags":["a\"b",null,true]}"#
        )
    }

    @Test func integersAtTheEdgesOfEveryWidth() {
        var writer = JSONStreamWriter()
        writer.beginArray()
        writer.integer(0)
        writer.integer(-1)
        writer.integer(9)
        writer.integer(10)
        writer.integer(Int64.min)
        writer.integer(Int64.max)
        writer.integer(UInt64.max)
        writer.integer(Int8.min)
        writer.integer(UInt8.max)
        writer.integer(Int32(-2_147_483_648))
        writer.endArray()
        #expect(
            String(decoding: writer.bytes, as: UTF8.self)
                == "[0,-1,9,10,-9223372036854775808,9223372036854775807,18446744073709551615,-128,255,-2147483648]"
        )
    }
}
