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

    @Test("past its bound, memory forgets the keys used least recently until the rest fit seven eighths of it")
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
        // Eleven answers, one over: down to at most 8.75 answers' bytes, so the three oldest go.
        #expect(memory.bytes == 8 * size)
        #expect(try Self.kept(&memory, of: 11) == [0, 1, 2, 3, 4, 8, 9, 10])
    }

    @Test("one pass makes room for many answers: the next stores forget nothing until the bound is reached again")
    func onePassMakesRoomForManyAnswers() throws {
        let size = try Self.answer(0).byteCount
        let bound = 64 * size
        var memory = RememberedAnswers()
        try Self.write(0..<65, into: &memory, bound: bound)
        // 65 answers: down to 56 (seven eighths of 64), the nine written first going.
        #expect(memory.bytes == 56 * size)
        try Self.write(65..<73, into: &memory, bound: bound)
        #expect(memory.bytes == 64 * size)
        #expect(try Self.kept(&memory, of: 73) == Array(9..<73))
    }
}
