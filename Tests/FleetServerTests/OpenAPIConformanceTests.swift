import FleetServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import ModelKit
import NIOCore
import Testing

/// The OpenAPI documents kept in the repository are the ones the daemon serves, list exactly the routes it
/// registers, and describe what every route answers: each operation is exercised and its response checked against
/// the documented statuses, media types and schemas.
@Suite("OpenAPI documents")
struct OpenAPIConformanceTests {
    static let repositoryDocuments = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Apps/FleetServer/OpenAPI")

    static func document(_ version: Int) throws -> JSONValue {
        try JSONValue(parsing: try #require(OpenAPIDocuments.document(version: version)))
    }

    static func operations(_ document: JSONValue) -> Set<String> {
        var operations: Set<String> = []
        guard case .object(let paths) = document["paths"] else { return [] }
        for (path, item) in paths {
            guard case .object(let methods) = item else { continue }
            for method in methods.keys where method != "parameters" {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        return operations
    }

    @Test("the bundled documents are the files in the repository")
    func bundledEqualsRepository() throws {
        for version in [1, 2] {
            let repository = try Data(
                contentsOf: Self.repositoryDocuments.appendingPathComponent("fleet-v\(version).json")
            )
            #expect(OpenAPIDocuments.document(version: version) == repository)
        }
        #expect(OpenAPIDocuments.document(version: 3) == nil)
    }

    @Test("every registered route is documented, and every documented operation is registered")
    func routesMatchDocuments() throws {
        let fixture = try ServerFixture()
        let registered = Set(fixture.daemon.operations.map(\.description))
        let documented = Self.operations(try Self.document(1)).union(Self.operations(try Self.document(2)))
        #expect(
            registered == documented,
            "only registered: \(registered.subtracting(documented)); only documented: \(documented.subtracting(registered))"
        )
        #expect(registered.count == 24)
    }

    @Test("every operation answers as its document says, in status, media type and schema")
    func responsesMatchSchemas() async throws {
        let fixture = try ServerFixture()
        let v1 = try Self.document(1)
        let v2 = try Self.document(2)
        try await fixture.withServer { client in
            var checked: Set<String> = []
            func check(_ document: JSONValue, _ method: String, _ template: String, _ response: TestResponse) throws {
                let failures = SchemaChecker(document: document).check(
                    method: method,
                    path: template,
                    status: Int(response.status.code),
                    contentType: response.headers[.contentType],
                    body: response.body.readableBytes == 0
                        ? JSONValue?.none
                        : response.headers[.contentType]?.contains("json") == true
                            ? try response.jsonValue() : .string(response.text)
                )
                #expect(failures == [], "\(method.uppercased()) \(template) \(response.status.code)")
                checked.insert("\(method.uppercased()) \(template)")
            }
            let body2 =
                #"{"plate": "OA-2", "make": "Volvo", "model": "FH", "modelYear": 2020, "maintenance": {"due": true, "lastServiced": "2024-01-02T03:04:05Z"}}"#
            let created2 = try await client.send(.post, "/v2/vehicles", json: body2)
            try check(v2, "post", "/v2/vehicles", created2)
            let id2 = try #require(try created2.string("id"))
            let page = try await client.send(.get, "/v2/vehicles?limit=1")
            try check(v2, "get", "/v2/vehicles", page)
            let one = try await client.send(.get, "/v2/vehicles/\(id2)")
            try check(v2, "get", "/v2/vehicles/{id}", one)
            // Conditional reads of answers the client holds: 304 without a body.
            for (template, uri, tag) in [
                ("/v2/vehicles", "/v2/vehicles?limit=1", page.headers[.eTag]),
                ("/v2/vehicles/{id}", "/v2/vehicles/\(id2)", one.headers[.eTag]),
            ] {
                let notModified = try await client.send(.get, uri, headers: [.ifNoneMatch: try #require(tag)])
                #expect(notModified.status == .notModified)
                try check(v2, "get", template, notModified)
            }
            try check(
                v2,
                "patch",
                "/v2/vehicles/{id}",
                try await client.send(.patch, "/v2/vehicles/\(id2)", json: #"{"model": "FH16", "revision": 1}"#)
            )
            try check(
                v2,
                "patch",
                "/v2/vehicles/{id}",
                try await client.send(.patch, "/v2/vehicles/\(id2)", json: #"{"model": "FH16", "revision": 1}"#)
            )
            try check(v2, "post", "/v2/vehicles", try await client.send(.post, "/v2/vehicles", json: #"{"plate": ""}"#))
            try check(v2, "delete", "/v2/vehicles/{id}", try await client.send(.delete, "/v2/vehicles/\(id2)"))
            try check(v2, "delete", "/v2/vehicles/{id}", try await client.send(.delete, "/v2/vehicles/\(id2)"))

            let created1 = try await client.send(
                .post,
                "/v1/vehicles",
                json: #"{"tag": "OA-1", "make": "MAN", "model": "TGX", "year": 2018}"#
            )
            try check(v1, "post", "/v1/vehicles", created1)
            let id1 = try #require(try created1.string("id"))
            try check(v1, "get", "/v1/vehicles", try await client.send(.get, "/v1/vehicles"))
            try check(v1, "get", "/v1/vehicles/{id}", try await client.send(.get, "/v1/vehicles/\(id1)"))
            try check(
                v1,
                "put",
                "/v1/vehicles/{id}",
                try await client.send(
                    .put,
                    "/v1/vehicles/\(id1)",
                    json: #"{"tag": "OA-1", "make": "MAN", "model": "TGS", "year": 2018, "needsMaintenance": true}"#
                )
            )
            try check(v1, "delete", "/v1/vehicles/{id}", try await client.send(.delete, "/v1/vehicles/\(id1)"))
            try check(v1, "get", "/v1/vehicles/{id}", try await client.send(.get, "/v1/vehicles/not-a-uuid"))

            for (version, document) in [(1, v1), (2, v2)] {
                try check(document, "get", "/", try await client.send(.get, "/"))
                try check(document, "get", "/health", try await client.send(.get, "/health"))
                try check(document, "get", "/metrics", try await client.send(.get, "/metrics"))
                try check(
                    document,
                    "get",
                    "/openapi/v\(version).json",
                    try await client.send(.get, "/openapi/v\(version).json")
                )
            }
            // HEAD answers with the GET's status and header fields, and no body where the document has none.
            let reads: [(JSONValue, String, String)] = [
                (v1, "/v1/vehicles", "/v1/vehicles"), (v1, "/v1/vehicles/{id}", "/v1/vehicles/\(id1)"),
                (v2, "/v2/vehicles", "/v2/vehicles"), (v2, "/v2/vehicles/{id}", "/v2/vehicles/\(id2)"),
                (v1, "/", "/"), (v2, "/", "/"), (v1, "/health", "/health"), (v2, "/health", "/health"),
                (v1, "/metrics", "/metrics"),
                (v2, "/metrics", "/metrics"), (v1, "/openapi/v1.json", "/openapi/v1.json"),
                (v2, "/openapi/v2.json", "/openapi/v2.json"),
            ]
            for (document, template, uri) in reads {
                let response = try await client.send(.head, uri)
                #expect(response.body.readableBytes == 0, "HEAD \(uri)")
                try check(document, "head", template, response)
            }
            #expect(
                checked == Self.operations(v1).union(Self.operations(v2)),
                "every documented operation was exercised"
            )
        }
    }
}

/// Checks a response against an OpenAPI 3.1 document: the status is documented for the operation, the media type
/// is the documented one, and a JSON body matches the schema (types, required and unknown members, `$ref`s,
/// enums, integer bounds and string lengths).
struct SchemaChecker {
    let document: JSONValue

    func check(method: String, path: String, status: Int, contentType: String?, body: JSONValue?) -> [String] {
        guard let operation = document["paths"]?[path]?[method], let responses = operation["responses"] else {
            return ["operation not documented"]
        }
        guard var response = responses[String(status)] else {
            return ["status \(status) not documented"]
        }
        if case .string(let reference) = response["$ref"], let resolved = resolve(reference) { response = resolved }
        guard let content = response["content"] else {
            // `body == nil` would compare with JSON null (JSONValue is nil-literal-expressible), so match the optional.
            if case .none = body { return [] }
            return ["a body where none is documented"]
        }
        let mediaType = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard let entry = content[mediaType] else {
            return ["media type \(mediaType) not documented"]
        }
        guard let schema = entry["schema"], mediaType.hasSuffix("json"), let body else { return [] }
        var failures: [String] = []
        validate(body, against: schema, at: "$", into: &failures)
        return failures
    }

    private func resolve(_ reference: String) -> JSONValue? {
        var node: JSONValue? = document
        for part in reference.dropFirst(2).split(separator: "/") {
            node = node?[String(part)]
        }
        return node
    }

    private func validate(_ value: JSONValue, against schema: JSONValue, at path: String, into failures: inout [String])
    {
        if case .string(let reference) = schema["$ref"] {
            guard let resolved = resolve(reference) else { return failures.append("\(path): unresolved \(reference)") }
            return validate(value, against: resolved, at: path, into: &failures)
        }
        guard case .string(let type) = schema["type"] else { return }
        switch (type, value) {
        case ("object", .object(let object)):
            if case .array(let required) = schema["required"] {
                for case .string(let name) in required where object[name] == nil {
                    failures.append("\(path).\(name): required but missing")
                }
            }
            for (name, member) in object {
                if let property = schema["properties"]?[name] {
                    validate(member, against: property, at: "\(path).\(name)", into: &failures)
                } else if schema["additionalProperties"] == .bool(false) {
                    failures.append("\(path).\(name): not in the schema")
                }
            }
        case ("array", .array(let elements)):
            if let items = schema["items"] {
                for (index, element) in elements.enumerated() {
                    validate(element, against: items, at: "\(path)[\(index)]", into: &failures)
                }
            }
        case ("string", .string(let text)):
            if case .integer(let minimum) = schema["minLength"], text.count < minimum {
                failures.append("\(path): too short")
            }
            if case .integer(let maximum) = schema["maxLength"], text.count > maximum {
                failures.append("\(path): too long")
            }
            if case .array(let allowed) = schema["enum"], !allowed.contains(.string(text)) {
                failures.append("\(path): \(text) is not one of the documented values")
            }
            if schema["format"] == .string("uuid"), UUID(uuidString: text) == nil {
                failures.append("\(path): not a UUID")
            }
        case ("integer", .integer(let number)):
            if case .integer(let minimum) = schema["minimum"], number < minimum {
                failures.append("\(path): below \(minimum)")
            }
            if case .integer(let maximum) = schema["maximum"], number > maximum {
                failures.append("\(path): above \(maximum)")
            }
        case ("boolean", .bool):
            break
        default:
            failures.append("\(path): expected \(type), found \(value.formatted())")
        }
    }
}
