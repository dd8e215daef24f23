import ModelKit
import ModelKitTesting

/// Builds random JSON trees and texts for round-trip and fuzz tests.
enum RandomJSON {
    static let alphabet: [String] = [
        "a", "b", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "é", "ß", "€", "😀", "\u{2028}", "𝄞",
    ]

    static func string(using generator: inout SeededGenerator) -> String {
        let length = Int.random(in: 0...12, using: &generator)
        return (0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "a" }.joined()
    }

    static func double(using generator: inout SeededGenerator) -> Double {
        switch Int.random(in: 0...4, using: &generator) {
        case 0: return Double(Int.random(in: -1000...1000, using: &generator))
        case 1: return Double.random(in: -1...1, using: &generator)
        case 2: return Double.random(in: -1e300...1e300, using: &generator)
        case 3: return Double(bitPattern: generator.next())
        default: return Double.random(in: -1e-300...1e-300, using: &generator)
        }
    }

    static func value(depth: Int = 0, using generator: inout SeededGenerator) -> JSONValue {
        let choice = Int.random(in: 0...(depth > 4 ? 4 : 6), using: &generator)
        switch choice {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .integer(Int64.random(in: .min ... .max, using: &generator))
        case 3:
            let number = double(using: &generator)
            return .double(number.isFinite ? number : 0.5)
        case 4: return .string(string(using: &generator))
        case 5:
            let count = Int.random(in: 0...5, using: &generator)
            return .array((0..<count).map { _ in value(depth: depth + 1, using: &generator) })
        default:
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0...5, using: &generator) {
                object[string(using: &generator)] = value(depth: depth + 1, using: &generator)
            }
            return .object(object)
        }
    }
}
