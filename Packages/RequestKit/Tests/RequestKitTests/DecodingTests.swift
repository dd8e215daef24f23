import Foundation
import HTTPTypes
import ModelKit
import RequestKit
import RequestKitTesting
import Testing

struct Vehicle: Decodable, Sendable, Equatable {
    let plate: String
    let modelYear: Int
}

struct Fleet: Decodable, Sendable {
    let vehicles: [Vehicle]
}

struct APIProblem: Decodable, Sendable, Equatable {
    let code: String
    let message: String
}

struct DecodingTests {
    @Test func jsonKeepsIntegersAndDecimalsApart() async throws {
        try await withClient(handler: { _ in .json(#"{"a": 1, "b": 1.0}"#) }) { client, _ in
            let json = try #require(try await client.get("x").value.json)
            #expect(json["a"] == .integer(1))
            #expect(json["b"] == .double(1.0))
        }
    }

    @Test func vendorJSONTypesDecodeAsJSON() async throws {
        let response = TestResponse(
            status: 200,
            headers: [("Content-Type", "application/vnd.fleet.v2+json")],
            body: .data(Data("[1]".utf8))
        )
        try await withClient(handler: { _ in response }) { client, _ in
            let value1 = try await client.get("x").value.json
            #expect(value1 == [1])
        }
    }

    @Test func textUsesTheCharsetOfTheResponse() async throws {
        let latin1 = TestResponse(
            status: 200,
            headers: [("Content-Type", "text/plain; charset=ISO-8859-1")],
            body: .data(Data([0x63, 0x61, 0x66, 0xE9]))
        )
        try await withClient(handler: { _ in latin1 }) { client, _ in
            let value2 = try await client.get("x").value.text
            #expect(value2 == "café")
        }
    }

    @Test func formBodiesDecodeToFieldsInOrder() async throws {
        let form = TestResponse.text("b=2&a=one+two&c=%26", contentType: "application/x-www-form-urlencoded")
        try await withClient(handler: { _ in form }) { client, _ in
            guard case .form(let fields) = try await client.get("x").value else {
                Issue.record("expected form fields")
                return
            }
            #expect(fields == [FormField("b", "2"), FormField("a", "one two"), FormField("c", "&")])
        }
    }

    @Test func octetStreamStaysBytes() async throws {
        let bytes = TestResponse(
            status: 200,
            headers: [("Content-Type", "application/octet-stream")],
            body: .data(Data([0, 1, 2, 255]))
        )
        try await withClient(handler: { _ in bytes }) { client, _ in
            guard case .data(let data) = try await client.get("x").value else {
                Issue.record("expected data")
                return
            }
            #expect(data == Data([0, 1, 2, 255]))
        }
    }

    @Test func customHandlersDecodeTheirMediaTypes() async throws {
        var configuration = RequestClient.Configuration()
        configuration.decoders.register("text/csv") { data, _ in
            .custom(
                String(decoding: data, as: UTF8.self).split(separator: "\n").map {
                    $0.split(separator: ",").map(String.init)
                }
            )
        }
        let csv = TestResponse.text("a,b\n1,2", contentType: "text/csv")
        try await withClient(configuration: configuration, handler: { _ in csv }) { client, _ in
            guard case .custom(let value) = try await client.get("x").value else {
                Issue.record("expected a custom value")
                return
            }
            #expect(value as? [[String]] == [["a", "b"], ["1", "2"]])
        }
    }

    @Test func modelsAndArraysOfModelsDecode() async throws {
        let handler: TestServer.Handler = { request in
            request.path == "/one"
                ? .json(#"{"plate": "AB 1", "modelYear": 2020}"#)
                : .json(#"[{"plate": "AB 1", "modelYear": 2020}, {"plate": "CD 2", "modelYear": 2021}]"#)
        }
        try await withClient(handler: handler) { client, _ in
            let value3 = try await client.get("one", as: Vehicle.self)
            #expect(value3 == Vehicle(plate: "AB 1", modelYear: 2020))
            let value4 = try await client.get("all", as: [Vehicle].self).map(\.plate)
            #expect(value4 == ["AB 1", "CD 2"])
        }
    }

    @Test func anUndecodableBodyNamesTheFieldPathAndTheStatus() async throws {
        let body = #"{"vehicles": [{"plate": "A", "modelYear": 1}, {"plate": "B", "modelYear": "abc"}]}"#
        try await withClient(handler: { _ in .json(body, status: 200) }) { client, _ in
            await #expect {
                _ = try await client.get("fleet", as: Fleet.self)
            } throws: { error in
                guard let error = error as? RequestKitError else { return false }
                return error.code == .decodingFailed && error.status == 200
                    && error.reason == #"vehicles[1].modelYear: expected Int, found string "abc""#
                    && error.operation == "GET fleet"
            }
        }
    }

    @Test func aModelFromTheWrongContentTypeIsATypedError() async throws {
        try await withClient(handler: { _ in .text("<html>") }) { client, _ in
            await #expect {
                _ = try await client.get("one", as: Vehicle.self)
            } throws: { error in
                (error as? RequestKitError)?.code == .unacceptableContentType
            }
        }
    }

    @Test func noContentDecodesAsEmpty() async throws {
        try await withClient(handler: { _ in .status(204) }) { client, _ in
            let response = try await client.delete("vehicles/1")
            #expect(response.status.code == 204)
            guard case .empty = response.value else {
                Issue.record("expected empty")
                return
            }
            let value5 = try await client.request(.delete, "vehicles/1", as: EmptyResponse.self).value
            #expect(value5 == EmptyResponse())
        }
    }

    @Test func unacceptableStatusCarriesTheStatusCode() async throws {
        try await withClient(handler: { _ in .json(#"{"code": "gone", "message": "sold"}"#, status: 404) }) {
            client,
            _ in
            await #expect {
                _ = try await client.get("vehicles/9")
            } throws: { error in
                guard let error = error as? RequestKitError else { return false }
                return error.code == .unacceptableStatus && error.status == 404 && error.url != nil
            }
        }
    }

    @Test func aBodyOverTheLimitIsATypedError() async throws {
        var configuration = RequestClient.Configuration()
        configuration.maximumBodySize = 10
        let big = TestResponse.text(String(repeating: "x", count: 100))
        try await withClient(configuration: configuration, handler: { _ in big }) { client, _ in
            await #expect {
                _ = try await client.get("big")
            } throws: { error in
                (error as? RequestKitError)?.code == .bodyTooLarge
            }
        }
    }
}
