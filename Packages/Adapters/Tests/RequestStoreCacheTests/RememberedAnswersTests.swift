import Foundation
import HTTPTypes
import RequestKit
import Testing

@testable import RequestStoreCache

@Suite("The answers a cache store keeps in memory")
struct RememberedAnswersTests {
    /// An answer under `item-NN`: every answer made here has the same size.
    static func answer(_ number: Int) throws -> CachedResponse {
        let url = try #require(URL(string: "http://127.0.0.1:9/item-\(String(format: "%03d", number))"))
        var fields = HTTPFields()
        fields[.cacheControl] = "max-age=60"
        return CachedResponse(
            key: CacheKey(method: .get, url: url),
            status: 200,
            headerFields: fields,
            body: Data(repeating: 0x61, count: 100),
            url: url,
            requestTime: Date(timeIntervalSince1970: 0),
            responseTime: Date(timeIntervalSince1970: 0)
        )
    }

    /// The numbers of the answers memory still gives, out of `0..<count`.
    static func kept(_ memory: inout RememberedAnswers, of count: Int) throws -> [Int] {
        try (0..<count).filter { number in
            // Answers being written are used without a version to check them against.
            if case .answers = memory.recall(try answer(number).key, at: nil) { return true }
            return false
        }
    }

    /// Begins writes of the answers `numbers` into `memory`, each as a store does before its commit.
    static func write(_ numbers: Range<Int>, into memory: inout RememberedAnswers, bound: Int) throws {
        for number in numbers {
            memory.beginWrite(try answer(number), id: UUID(), bound: bound)
        }
    }

    @Test("past its bound, memory forgets the keys used least recently until the rest fit")
    func pastItsBoundMemoryForgetsTheLeastRecentlyUsedKeys() throws {
        let size = try Self.answer(0).byteCount
        let bound = 10 * size
        var memory = RememberedAnswers()
        try Self.write(0..<10, into: &memory, bound: bound)
        #expect(memory.bytes == bound)
        // Using the first five makes 5...9 the oldest.
        for number in 0..<5 {
            _ = memory.recall(try Self.answer(number).key, at: nil)
        }
        try Self.write(10..<11, into: &memory, bound: bound)
        // Eleven answers, one over: the oldest goes, and only it.
        #expect(memory.bytes == bound)
        #expect(try Self.kept(&memory, of: 11) == [0, 1, 2, 3, 4, 6, 7, 8, 9, 10])
        // Reading them all, in order, used them in that order: 0 and 1 are now the oldest.
        try Self.write(11..<13, into: &memory, bound: bound)
        #expect(try Self.kept(&memory, of: 13) == [2, 3, 4, 6, 7, 8, 9, 10, 11, 12])
    }

    @Test("every store past the bound forgets just what it must, in order of use, and a forgotten key can come back")
    func everyStorePastTheBoundForgetsJustWhatItMust() throws {
        let size = try Self.answer(0).byteCount
        let bound = 64 * size
        var memory = RememberedAnswers()
        try Self.write(0..<65, into: &memory, bound: bound)
        #expect(memory.bytes == 64 * size)
        for end in 66...73 {
            try Self.write((end - 1)..<end, into: &memory, bound: bound)
            #expect(memory.bytes == 64 * size)
        }
        #expect(try Self.kept(&memory, of: 73) == Array(9..<73))
        // Written again, the first answer is the newest: the next to go is the oldest of the others.
        try Self.write(0..<1, into: &memory, bound: bound)
        #expect(try Self.kept(&memory, of: 73) == [0] + Array(10..<73))
        memory.forget(try Self.answer(0).key)
        #expect(memory.bytes == 63 * size)
        memory.forgetAll()
        #expect(memory.bytes == 0)
        #expect(try Self.kept(&memory, of: 73).isEmpty)
    }
}
