import Foundation
import ModelKit
import Testing

struct ModelIDTests {
    @Test func generatedIdentifiersAreVersion7WithTheRFCVariant() {
        let id = ModelID<Vehicle>()
        let bytes = id.uuid.uuid
        #expect(bytes.6 >> 4 == 7)
        #expect(bytes.8 >> 6 == 0b10)
        #expect(id.uuidString.dropFirst(14).first == "7")
    }

    @Test func timestampIsTheCreationTimeToTheMillisecond() throws {
        let before = Date()
        let id = ModelID<Vehicle>()
        let after = Date()
        let timestamp = try #require(id.timestamp)
        #expect(timestamp.timeIntervalSince1970 >= (before.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        #expect(timestamp <= after.addingTimeInterval(0.002))
        #expect(ModelID<Vehicle>(uuid: UUID()).timestamp == nil)
    }

    @Test func identifiersGeneratedInARowStrictlyIncreaseAsValuesAndStrings() {
        let ids = (0..<10_000).map { _ in ModelID<Vehicle>() }
        for (earlier, later) in zip(ids, ids.dropFirst()) {
            #expect(earlier < later)
            #expect(earlier.uuidString < later.uuidString)
        }
        #expect(Set(ids).count == ids.count)
    }

    @Test func identifiersFromConcurrentTasksAreUnique() async {
        let ids = await withTaskGroup(of: [ModelID<Vehicle>].self) { group in
            for _ in 0..<4 {
                group.addTask { (0..<2000).map { _ in ModelID<Vehicle>() } }
            }
            var all: [ModelID<Vehicle>] = []
            for await batch in group {
                #expect(batch == batch.sorted())
                all += batch
            }
            return all
        }
        #expect(Set(ids).count == 8000)
    }

    @Test func parsingAgreesWithFoundation() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789abcdefABCDEF-g")
        for _ in 0..<2_000 {
            let uuid = UUID()
            var text = Array(Bool.random(using: &generator) ? uuid.uuidString : uuid.uuidString.lowercased())
            if Int.random(in: 0..<3, using: &generator) == 0 {
                text[Int.random(in: 0..<36, using: &generator)] = alphabet.randomElement(using: &generator) ?? "-"
            }
            let string = String(text)
            // Canonical: hyphens exactly at 8, 13, 18 and 23, hex digits everywhere else. Foundation's parser on
            // Linux (`sscanf` with `%2hhx`) also takes a signed pair such as "-7" where a digit pair belongs;
            // ModelID refuses those.
            let canonical = text.enumerated().allSatisfy { position, character in
                [8, 13, 18, 23].contains(position) ? character == "-" : character.isHexDigit
            }
            let parsed = try? ModelID<Vehicle>(parsing: string)
            #expect(parsed?.uuid == (canonical ? UUID(uuidString: string) : nil), "\(string)")
            #expect((parsed != nil) == canonical, "\(string)")
        }
    }

    @Test func stringFormIsLowercaseAndParsesBack() throws {
        let id = ModelID<Vehicle>()
        #expect(id.uuidString == id.uuidString.lowercased())
        #expect(try ModelID<Vehicle>(parsing: id.uuidString) == id)
        #expect(try ModelID<Vehicle>(parsing: id.uuidString.uppercased()) == id)
        #expect(id.description == id.uuidString)
    }

    @Test(arguments: [
        "", "abc", "0190f5c2-7a4b-7c3d-9e1f-2a3b4c5d6e7", "0190f5c27a4b7c3d9e1f2a3b4c5d6e7f0000",
        "0190f5c2-7a4b-7c3d-9e1f-2a3b4c5d6e7g", "0190f5c2_7a4b-7c3d-9e1f-2a3b4c5d6e7f",
        "0190f5c2-7a4b-7c3d-9e1f2-a3b4c5d6e7f", "0190f5c2-7a4b-7c3d-9e1f-2a3b4c5d6é7",
        " 190f5c2-7a4b-7c3d-9e1f-2a3b4c5d6e7f",
    ])
    func invalidTextThrowsATypedError(text: String) {
        #expect {
            _ = try ModelID<Vehicle>(parsing: text)
        } throws: { error in
            (error as? ModelIDError)?.code == .invalidUUID
        }
    }

    @Test func encodesAsAPlainLowercaseUUIDString() throws {
        let data = try ModelCoding.encode([Sample.vehicleID])
        #expect(String(decoding: data, as: UTF8.self) == #"["0190f5c2-7a4b-7c3d-9e1f-2a3b4c5d6e7f"]"#)
        #expect(try ModelCoding.decode([ModelID<Vehicle>].self, from: data) == [Sample.vehicleID])
    }

    @Test func retypingKeepsTheUUID() {
        let id = ModelID<Vehicle>()
        let other: ModelID<Owner> = id.retyped()
        #expect(other.uuid == id.uuid)
    }

    @Test func orderingFollowsTheBytes() throws {
        let low = try ModelID<Vehicle>(parsing: "00000000-0000-7000-8000-000000000001")
        let high = try ModelID<Vehicle>(parsing: "00000000-0000-7000-8000-000000000100")
        let higher = try ModelID<Vehicle>(parsing: "00000001-0000-7000-8000-000000000000")
        #expect(low < high && high < higher)
        #expect([higher, low, high].sorted() == [low, high, higher])
    }

    @Test func uuidStringIsFoundationsTextInLowerCase() throws {
        let fixed = [
            UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
            UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
        ]
        for uuid in fixed + (0..<500).map({ _ in UUID() }) {
            let id = ModelID<Self>(uuid: uuid)
            #expect(id.uuidString == uuid.uuidString.lowercased())
            #expect(try ModelID<Self>(parsing: id.uuidString) == id)
        }
    }
}
