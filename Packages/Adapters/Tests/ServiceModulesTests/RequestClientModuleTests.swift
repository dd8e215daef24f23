import Foundation
import HTTPTypes
import LocatorKit
import ModelKit
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import ServiceModules
import StoreKitLite
import Testing

struct RequestClientModuleTests {
    static func cacheable(_ request: TestRequest) -> TestResponse {
        TestResponse(
            status: 200,
            headers: [("Content-Type", "application/json"), ("Cache-Control", "max-age=600")],
            body: .data(Data(#"{"plate":"KA-1"}"#.utf8))
        )
    }

    @Test func theClientReachesItsEnvironmentAndTheLifecycleShutsItsPoolDown() async throws {
        try await TestServer.withTestServer(handler: { _ in .json(#"{"ok":true}"#) }) { server in
            let locator = Locator()
            try locator.installChecked([RequestClientModule(name: "fleet", baseURL: server.baseURL.absoluteString)])
            let client = try await locator.resolve(RequestClient.self, name: "fleet")
            let stack = try await locator.resolve(RequestClientStack.self, name: "fleet")
            #expect(stack.environment.name == "fleet")
            #expect(stack.cache == nil)
            #expect(try await client.get("status").value.json == ["ok": true])
            let lifecycles = try await locator.resolve(ModuleLifecycles.self)
            #expect(lifecycles.labels == ["client \"fleet\""])
            try await lifecycles.shutdown()
            await #expect(throws: RequestKitError.self) { try await client.get("status") }
            #expect(server.receivedRequests.count == 1)
            // The client's background work was shut down first: nothing new starts there.
            #expect(!client.backgroundWork.run {})
        }
    }

    @Test func aCacheFileAnswersARepeatedGETAcrossLocators() async throws {
        let folder = try ScratchFolder()
        let path = folder.path("caches/http.sqlite")  // the folder is created when missing
        try await TestServer.withTestServer(handler: Self.cacheable) { server in
            for _ in 0..<2 {
                let locator = Locator()
                try locator.installChecked([
                    RequestClientModule(baseURL: server.baseURL.absoluteString, cache: .file(path: path))
                ])
                let client = try await locator.resolve(RequestClient.self)
                #expect(try await client.get("vehicles/1").value.json == ["plate": "KA-1"])
                try await locator.resolve(ModuleLifecycles.self).shutdown()
            }
            #expect(server.receivedRequests.count == 1)
        }
    }

    @Test func aForeignCacheFileIsReportedLeftAloneAndTheClientGoesUncached() async throws {
        let folder = try ScratchFolder()
        let path = folder.path("http.sqlite")
        let bytes = Data("these bytes are not a database, and must stay exactly as they are".utf8)
        try bytes.write(to: URL(fileURLWithPath: path))
        let reported = Shared<[(path: String, code: StoreError.Code)]>([])
        try await TestServer.withTestServer(handler: Self.cacheable) { server in
            let locator = Locator()
            try locator.installChecked([
                RequestClientModule(
                    baseURL: server.baseURL.absoluteString,
                    cache: .file(path: path),
                    cacheUnavailable: { path, error in reported.withLock { $0.append((path, error.code)) } }
                )
            ])
            let client = try await locator.resolve(RequestClient.self)
            for _ in 0..<2 { #expect(try await client.get("vehicles/1").status.code == 200) }
            #expect(try await locator.resolve(RequestClientStack.self).cache == nil)
            #expect(server.receivedRequests.count == 2)
            try await locator.resolve(ModuleLifecycles.self).shutdown()
        }
        let reports = reported.withLock { $0 }
        #expect(reports.count == 1)
        #expect(reports.first?.path == path)
        #expect(reports.first?.code == .notADatabase)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    @Test func anotherEnvironmentSharesThePoolAndTheCacheButNotTheMiddleware() async throws {
        try await TestServer.withTestServer(handler: Self.cacheable) { server in
            var configuration = RequestClient.Configuration()
            configuration.headerFields[.authorization] = "Bearer secret"
            let locator = Locator()
            try locator.installChecked([
                RequestClientModule(
                    baseURL: server.baseURL.absoluteString,
                    configuration: configuration,
                    cache: .memory()
                )
            ])
            let stack = try await locator.resolve(RequestClientStack.self)
            let other = stack.client(for: try ServiceEnvironment(name: "other", baseURL: server.baseURL))
            _ = try await other.get("public/1")
            _ = try await other.get("public/1")
            #expect(server.receivedRequests.count == 1)
            #expect(
                server.receivedRequests.first?.headers.first(where: { $0.0.lowercased() == "authorization" }) == nil
            )
            try await locator.resolve(ModuleLifecycles.self).shutdown()
        }
    }

    @Test func withoutACacheFileTheClientResolvesSynchronouslyToo() async throws {
        let folder = try ScratchFolder()
        let locator = Locator()
        try locator.installChecked([
            RequestClientModule(name: "plain", baseURL: "http://127.0.0.1:9/"),
            RequestClientModule(name: "memory", baseURL: "http://127.0.0.1:9/", cache: .memory()),
            RequestClientModule(name: "file", baseURL: "http://127.0.0.1:9/", cache: .file(path: folder.path("c.db"))),
        ])
        func resolveNow(_ name: String) throws -> RequestClient { try locator.resolve(RequestClient.self, name: name) }
        #expect(try resolveNow("plain").configuration.cache == nil)
        #expect(try resolveNow("memory").configuration.cache != nil)
        // Opening a cache file needs `await`: a synchronous resolve says so instead of blocking.
        let error = #expect(throws: LocatorError.self) { try resolveNow("file") }
        #expect(error?.code == .asyncRequired)
        let lifecycles = try await locator.resolve(ModuleLifecycles.self)
        #expect(lifecycles.labels == ["client \"plain\"", "client \"memory\""])
        try await lifecycles.shutdown()
    }

    @Test func resolvingWithoutInstallingCheckedStillRefusesABadModule() async throws {
        let locator = Locator()
        try locator.install(RequestClientModule(baseURL: "::::"))
        let error = await #expect(throws: LocatorError.self) { try await locator.resolve(RequestClient.self) }
        let underlying = error?.underlying as? ModuleConfigurationError
        #expect(underlying?.code == .invalidConfiguration)
        #expect(try await locator.resolve(ModuleLifecycles.self).labels.isEmpty)
    }
}
