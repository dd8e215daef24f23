import Foundation
import ModelKit
import ModelKitTesting
import Testing

struct ModelCodingTests {
    @Test func aSampleModelEncodesToExactlyTheseBytes() throws {
        let data = try ModelCoding.encode(Sample.vehicle)
        let expected =
            #"{"id":"0190f5c2-7a4b-7c3d-9e1f-2a3b4c5d6e7f","make":"Volkswagen","mileage":12345.5,"#
            + #""modelYear":2021,"nickname":"Käfer/1","owner":{"name":"Ada"},"plate":"B-AB 123","#
            + #""registeredAt":"2024-03-01T08:15:30.250Z"}"#
        #expect(String(decoding: data, as: UTF8.self) == expected)
        #expect(try ModelCoding.decode(Vehicle.self, from: data) == Sample.vehicle)
    }

    @Test func prettyEncoderKeepsSortedKeys() throws {
        let data = try ModelCoding.makeEncoder(prettyPrinted: true).encode(["b": 1, "a": 2])
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\n"))
        #expect(try #require(text.firstIndex(of: "a")) < #require(text.firstIndex(of: "b")))
    }

    @Test(arguments: [
        ("2024-03-01T08:15:30Z", 1_709_280_930.0),
        ("2024-03-01T08:15:30.250Z", 1_709_280_930.25),
        ("2024-03-01T08:15:30.5Z", 1_709_280_930.5),
        ("2024-03-01T09:15:30.250+01:00", 1_709_280_930.25),
        ("2024-03-01T03:15:30-0500", 1_709_280_930.0),
        ("2024-02-29T00:00:00Z", 1_709_164_800.0),
        ("1970-01-01T00:00:00.000Z", 0.0),
        ("1969-12-31T23:59:59.999Z", -0.001),
        ("0001-01-01T00:00:00Z", -62_135_596_800.0),
    ])
    func datesDecodeFromISO8601WithOrWithoutFraction(text: String, seconds: Double) throws {
        let date = try ModelCoding.decode(Date.self, from: Data("\"\(text)\"".utf8))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_5)
    }

    @Test(arguments: [
        (1_709_280_930.25, "2024-03-01T08:15:30.250Z"),
        (0.0, "1970-01-01T00:00:00Z"),
        (-0.001, "1969-12-31T23:59:59.999Z"),
        (1_709_280_930.0004, "2024-03-01T08:15:30Z"),
        (1_709_280_930.9996, "2024-03-01T08:15:31Z"),
        (1_709_280_930.05, "2024-03-01T08:15:30.050Z"),
        (253_402_300_799.999, "9999-12-31T23:59:59.999Z"),
    ])
    func datesEncodeInUTCWithMillisecondsOnlyWhenNotZero(seconds: Double, text: String) throws {
        let data = try ModelCoding.encode(Date(timeIntervalSince1970: seconds))
        #expect(String(decoding: data, as: UTF8.self) == "\"\(text)\"")
    }

    /// Whole-second dates are what RFC 3339 readers without fraction support read, Foundation's `.iso8601` among
    /// them; dates with a fraction come back to the millisecond.
    @Test func wholeSecondDatesAreReadByFoundationsISO8601Strategy() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        // Years after 1582: Foundation's calendar is Julian before the Gregorian reform, ModelCoding's is proleptic.
        for seconds in [0.0, 1_709_280_930, -12_219_292_800, 253_402_300_799] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(try decoder.decode(Date.self, from: ModelCoding.encode(date)) == date, "\(seconds)")
        }
    }

    @Test func randomDatesRoundTripToTheMillisecond() throws {
        var generator = SeededGenerator(seed: 99)
        for _ in 0..<300 {
            let milliseconds = Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &generator)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let decoded = try ModelCoding.decode(Date.self, from: ModelCoding.encode(date))
            #expect(abs(decoded.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.000_001)
        }
    }

    @Test func datesOutsideTheSupportedYearsFailToEncode() {
        #expect(throws: EncodingError.self) {
            _ = try ModelCoding.encode(Date(timeIntervalSince1970: 1e13))
        }
    }

    @Test func nonFiniteFloatsEncodeAsStrings() throws {
        let data = try ModelCoding.encode([Double.nan, .infinity, -.infinity, 1.5])
        #expect(String(decoding: data, as: UTF8.self) == #"["NaN","Infinity","-Infinity",1.5]"#)
        let decoded = try ModelCoding.decode([Double].self, from: data)
        #expect(decoded[0].isNaN && decoded[1] == .infinity && decoded[2] == -.infinity)
    }

    @Test func keysAreKeptAsDeclared() throws {
        struct Snake: Codable { var modelYear = 1; var plate_number = "x" }
        let data = try ModelCoding.encode(Snake())
        #expect(String(decoding: data, as: UTF8.self) == #"{"modelYear":1,"plate_number":"x"}"#)
    }

    @Test func timestampIsTheTextTheEncoderWrites() throws {
        struct Stamp: Encodable { var at: Date }
        for seconds in [0.0, 1_700_000_000.123, -62_135_596_800, 253_402_300_799.999, 951_782_400.5] {
            let date = Date(timeIntervalSince1970: seconds)
            let encoded = String(decoding: try ModelCoding.encode(Stamp(at: date)), as: UTF8.self)
            let text = try #require(ModelCoding.timestamp(date))
            #expect(encoded == #"{"at":"\#(text)"}"#)
        }
        #expect(ModelCoding.timestamp(Date(timeIntervalSince1970: 253_402_300_800)) == nil, "year 10000")
    }
}
