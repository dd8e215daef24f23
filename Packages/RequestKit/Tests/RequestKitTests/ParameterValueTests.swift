import Foundation
import HTTPTypes
import ModelKit
import RequestKit
import RequestKitTesting
import Testing

struct ParameterValueTests {
    @Test func variablesWorkAsWellAsLiterals() async throws {
        let make = "volvo"
        let year = 2020
        let counts: [String: Int] = ["vans": 1, "cars": 3]
        let tags = ["a", "b"]
        let owner: String? = nil
        let parameters: RequestParameters = [
            "make": make, "year": year, "counts": counts, "tags": tags, "owner": owner,
        ]
        #expect(
            parameters.jsonObject
                == [
                    "make": "volvo", "year": 2020, "counts": ["cars": 3, "vans": 1], "tags": ["a", "b"], "owner": nil,
                ]
        )
        #expect(RequestParameters(counts).formFields == [FormField("cars", "3"), FormField("vans", "1")])
    }

    @Test func nestedValuesUseBracketsInQueriesAndForms() {
        let filter: [String: JSONValue] = ["state": "serviced", "years": [2019, 2020]]
        let parameters: RequestParameters = [
            "filter": filter,
            "tags": ["a", "b"],
            "rows": [["id": 1], ["id": 2]],
            "empty": [String](),
            "flag": true,
        ]
        let fields = parameters.formFields.map { "\($0.name)=\($0.value)" }
        #expect(
            fields == [
                "filter[state]=serviced", "filter[years][]=2019", "filter[years][]=2020", "tags[]=a", "tags[]=b",
                "rows[][id]=1", "rows[][id]=2", "flag=true",
            ]
        )
    }

    @Test func nestedParametersReachTheServerAsBracketsInTheQueryAndJSONInTheBody() async throws {
        try await withClient(handler: TestServer.echo) { client, _ in
            let make = "volvo"
            let filter: JSONValue = ["make": .string(make), "year": 2020]
            let query = try await client.get(
                "vehicles",
                parameters: ["filter": filter, "ids": [1, 2]],
                as: EchoedRequest.self
            )
            #expect(query.query == ["filter[make]=volvo", "filter[year]=2020", "ids[]=1", "ids[]=2"])
            let form = try await client.post(
                "vehicles",
                parameters: ["filter": filter, "ids": [1, 2]],
                encoding: .form,
                as: EchoedRequest.self
            )
            #expect(form.body == "filter%5Bmake%5D=volvo&filter%5Byear%5D=2020&ids%5B%5D=1&ids%5B%5D=2")
            let json = try await client.post(
                "vehicles",
                parameters: ["filter": filter, "ids": [1, 2]],
                as: EchoedRequest.self
            )
            #expect(try JSONValue(parsing: json.body) == ["filter": ["make": "volvo", "year": 2020], "ids": [1, 2]])
        }
    }
}
