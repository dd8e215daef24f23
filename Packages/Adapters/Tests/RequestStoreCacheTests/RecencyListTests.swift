import Testing

@testable import RequestStoreCache

@Suite("Values in order of use")
struct RecencyListTests {
    static func keys(_ list: RecencyList<String, Int>) -> [String] {
        list.oldestFirst.map(\.key)
    }

    @Test("values come out least recently used first; a use or an update makes a key the newest")
    func orderOfUse() {
        var list = RecencyList<String, Int>()
        #expect(list.isEmpty && list.oldest == nil)
        for (value, key) in ["a", "b", "c", "d"].enumerated() { list.updateValue(value, forKey: key) }
        #expect(Self.keys(list) == ["a", "b", "c", "d"])
        let usedB = list.use("b")
        let usedX = list.use("x")
        #expect(usedB && !usedX)
        #expect(Self.keys(list) == ["a", "c", "d", "b"])
        let replaced = list.updateValue(10, forKey: "a")
        #expect(replaced == 0)
        #expect(Self.keys(list) == ["c", "d", "b", "a"])
        #expect(list["a"] == 10 && list.count == 4)
        // A change in place is not a use.
        let changed = list.modify("c") { value -> Int in
            value += 100
            return value
        }
        #expect(changed == 102)
        #expect(Self.keys(list) == ["c", "d", "b", "a"])
        let used = list.use("d") { $0 }
        #expect(used == 3)
        #expect(Self.keys(list) == ["c", "b", "a", "d"])
    }

    @Test("removals from the front, the back and the middle keep the order and every key's value")
    func removals() {
        var list = RecencyList<String, Int>(minimumCapacity: 8)
        for value in 0..<8 { list.updateValue(value, forKey: "k\(value)") }
        let removed = ["k0", "k7", "k3", "k3"].map { list.removeValue(forKey: $0) }
        #expect(removed == [0, 7, 3, nil])
        #expect(Self.keys(list) == ["k1", "k2", "k4", "k5", "k6"])
        for key in ["k1", "k2", "k4", "k5", "k6"] { #expect(list[key] == Int(key.dropFirst())) }
        let oldest = list.removeOldest()
        #expect(oldest?.key == "k1" && oldest?.value == 1)
        list.use("k2")
        list.updateValue(9, forKey: "k9")
        #expect(Self.keys(list) == ["k4", "k5", "k6", "k2", "k9"])
        while let (key, _) = list.oldest { list.removeValue(forKey: key) }
        #expect(list.isEmpty && Self.keys(list).isEmpty)
        list.updateValue(1, forKey: "again")
        #expect(Self.keys(list) == ["again"])
        list.removeAll()
        #expect(list.isEmpty && !list.contains("again"))
    }

    @Test("thousands of random uses, updates and removals agree with a plain list kept in order")
    func agreesWithAPlainList() {
        var list = RecencyList<Int, Int>()
        var plain: [(key: Int, value: Int)] = []
        var generator = SplitMix(seed: 42)
        for step in 0..<20_000 {
            let key = Int(generator.next() % 64)
            switch generator.next() % 4 {
            case 0:
                list.use(key)
                if let position = plain.firstIndex(where: { $0.key == key }) {
                    plain.append(plain.remove(at: position))
                }
            case 1:
                list.removeValue(forKey: key)
                plain.removeAll { $0.key == key }
            case 2:
                _ = list.removeOldest()
                if !plain.isEmpty { plain.removeFirst() }
            default:
                list.updateValue(step, forKey: key)
                plain.removeAll { $0.key == key }
                plain.append((key, step))
            }
            if step % 97 == 0 {
                #expect(list.oldestFirst.map(\.key) == plain.map(\.key))
                #expect(list.oldestFirst.map(\.value) == plain.map(\.value))
            }
        }
        #expect(list.count == plain.count)
        for (key, value) in plain { #expect(list[key] == value) }
    }
}

/// A small seeded generator, so that a failure repeats.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
