import Foundation
import ModelKit
import Testing

struct JSONValueTests {
    @Test func literalsBuildEveryKind() {
        let value: JSONValue = ["a": nil, "b": true, "c": 1, "d": 1.0, "e": "x", "f": [1, "two"], "g": ["h": 2]]
        #expect(value["a"] == .null)
        #expect(value["b"]?.boolValue == true)
        #expect(value["c"] == .integer(1))
        #expect(value["d"] == .double(1.0))
        #expect(value["e"]?.stringValue == "x")
        #expect(value["f"]?[1]?.stringValue == "two")
        #expect(value["g"]?["h"]?.intValue == 2)
    }

    @Test func integerAndDoubleStayApart() {
        #expect(JSONValue.integer(1) != JSONValue.double(1.0))
        #expect(JSONValue.integer(1).doubleValue == 1.0)
        #expect(JSONValue.double(2.0).intValue == 2)
        #expect(JSONValue.double(2.5).intValue == nil)
    }

    @Test func typedAccessorsReturnNilForOtherKinds() {
        let value: JSONValue = "text"
        #expect(value.intValue == nil)
        #expect(value.boolValue == nil)
        #expect(value.arrayValue == nil)
        #expect(value.objectValue == nil)
        #expect(value.doubleValue == nil)
        #expect(value["key"] == nil)
        #expect(value[0] == nil)
        #expect(!value.isNull)
        #expect(JSONValue.null.isNull)
    }

    @Test func subscriptsSetAppendAndRemoveMembers() {
        var value: JSONValue = ["b": 1, "a": 2]
        value["c"] = 3
        value["b"] = nil
        value["a"] = "changed"
        #expect(value.objectValue?.keys == ["a", "c"])
        #expect(value["a"] == "changed")
        var array: JSONValue = [1, 2, 3]
        array[1] = "two"
        array[7] = "ignored"
        #expect(array == [1, "two", 3])
    }

    @Test func objectEqualityIgnoresKeyOrderButPrintingKeepsIt() {
        let first: JSONValue = ["a": 1, "b": 2]
        let second: JSONValue = ["b": 2, "a": 1]
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(first.formatted() == #"{"a":1,"b":2}"#)
        #expect(second.formatted() == #"{"b":2,"a":1}"#)
    }

    @Test func largeObjectsLookUpKeysThroughTheirIndex() throws {
        var object = JSONObject()
        for number in 0..<100 {
            object["key\(number)"] = .integer(Int64(number))
        }
        object["key50"] = nil
        #expect(object.count == 99)
        #expect(object["key99"] == .integer(99))
        #expect(object["key50"] == nil)
        #expect(object.position(of: "key51") == 50)
        #expect(object.keys.first == "key0")
    }

    @Test func compactPrintingKeepsOnePointZero() {
        let value: JSONValue = ["int": 1, "double": 1.0, "big": 1e300, "small": 1e-7, "negativeZero": -0.0]
        #expect(value.formatted() == #"{"int":1,"double":1.0,"big":1e+300,"small":1e-07,"negativeZero":-0.0}"#)
    }

    @Test func prettyPrintingIndentsTwoSpaces() {
        let value: JSONValue = ["a": [1, 2], "b": [:], "c": []]
        let expected = """
            {
              "a": [
                1,
                2
              ],
              "b": {},
              "c": []
            }
            """
        #expect(value.formatted(.pretty) == expected)
    }

    @Test func sortedFormattingOrdersKeys() {
        let value: JSONValue = ["b": 1, "a": ["d": 1, "c": 2]]
        #expect(value.formatted(JSONValue.Formatting(sortsKeys: true)) == #"{"a":{"c":2,"d":1},"b":1}"#)
    }

    @Test func stringsAreEscaped() {
        let value: JSONValue = "quote\" backslash\\ slash/ newline\n tab\t nul\u{0} bell\u{7} line\u{2028} é😀"
        #expect(
            value.formatted()
                == #""quote\" backslash\\ slash/ newline\n tab\t nul\u0000 bell\u0007 line\u2028 é😀""#
        )
    }

    @Test func nonFiniteDoublesPrintAsNull() {
        #expect(JSONValue.double(.nan).formatted() == "null")
        #expect(JSONValue.double(.infinity).formatted() == "null")
    }

    @Test func codableRoundTripThroughFoundationKeepsStructure() throws {
        let value: JSONValue = ["name": "x", "list": [1, 2.5, true, nil], "nested": ["k": "v"]]
        let data = try JSONEncoder().encode(value)
        let decoded = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(decoded == value)
    }

    @Test func decodingThroughJSONDecoderLosesTheIntegerDoubleDistinction() throws {
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data("[1.0, 1.5]".utf8))
        #expect(decoded == [1, 1.5])
    }

    @Test func jsonValueWorksAsAFieldOfAModel() throws {
        struct Event: Codable, Equatable {
            var name: String
            var payload: JSONValue
        }
        let event = Event(name: "created", payload: ["plate": "B-AB 123", "year": 2021])
        let data = try ModelCoding.encode(event)
        #expect(
            String(decoding: data, as: UTF8.self) == #"{"name":"created","payload":{"plate":"B-AB 123","year":2021}}"#
        )
        #expect(try ModelCoding.decode(Event.self, from: data) == event)
    }

    @Test func modelCodingDecodesJSONValueWithItsOwnParser() throws {
        let value = try ModelCoding.decode(JSONValue.self, from: Data(#"{"z":1.0,"a":1}"#.utf8))
        #expect(value.formatted() == #"{"z":1.0,"a":1}"#)
    }
}
