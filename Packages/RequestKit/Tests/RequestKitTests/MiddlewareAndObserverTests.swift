import Foundation
import HTTPTypes
import ModelKit
import ModelKitTesting
import RequestKit
import RequestKitTesting
import Testing

/// Appends its name to a header so the order of the chain is visible at the server.
struct TaggingMiddleware: Middleware {
    let name: String

    func intercept(
        _ request: ClientRequest,
        next: MiddlewareNext
    ) async throws -> ClientResponse {
        var request = request
        let trail = request.headerFields[HTTPField.Name("X-Trail")!] ?? ""
        request.headerFields[HTTPField.Name("X-Trail")!] = trail.isEmpty ? name : trail + "," + name
        return try await next(request)
    }
}

struct NotSignedIn: Error {}

/// Records observer events.
final class RecordingObserver: RequestObserver {
    let started = LockedValue<[RequestStarted]>([])
    let finished = LockedValue<[RequestFinished]>([])

    func requestStarted(_ event: RequestStarted) { started.update { $0.append(event) } }
    func requestFinished(_ event: RequestFinished) { finished.update { $0.append(event) } }
}

struct MiddlewareAndObserverTests {
    @Test func middlewareRunsInTheConfiguredOrder() async throws {
        var configuration = RequestClient.Configuration()
        configuration.middleware = [TaggingMiddleware(name: "first"), TaggingMiddleware(name: "second")]
        try await withClient(configuration: configuration, handler: { .text($0.header("x-trail") ?? "") }) {
            client,
            _ in
            let value1 = try await client.get("x").value.text
            #expect(value1 == "first,second")
        }
    }

    @Test func aDecoratorAddsATokenJustBeforeSending() async throws {
        var configuration = RequestClient.Configuration()
        configuration.middleware = [
            RequestDecorator { request in request.headerFields[.authorization] = "Bearer fresh" }
        ]
        try await withClient(configuration: configuration, handler: TestServer.echo) { client, _ in
            let value2 = try await client.get("x", as: EchoedRequest.self).authorization
            #expect(value2 == "Bearer fresh")
        }
    }

    @Test func aRefusingDecoratorStopsTheRequestBeforeTheServer() async throws {
        var configuration = RequestClient.Configuration()
        configuration.middleware = [RequestDecorator { _ in throw NotSignedIn() }]
        try await withClient(configuration: configuration, handler: TestServer.echo) { client, server in
            await #expect {
                _ = try await client.get("x")
            } throws: { error in
                guard let error = error as? RequestKitError else { return false }
                return error.code == .refused && error.underlying is NotSignedIn
            }
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func observersSeeStartAndFinishWithStatusBytesAndRedactedSecrets() async throws {
        let observer = RecordingObserver()
        var configuration = RequestClient.Configuration()
        configuration.observers = [observer]
        configuration.headerFields[.authorization] = "Bearer secret"
        configuration.headerFields[.cookie] = "session=abc"
        try await withClient(configuration: configuration, handler: { _ in .text("12345") }) { client, _ in
            _ = try await client.get("x", parameters: ["access_token": "t0ken", "page": "2"])
            _ = try? await client.get("missing", as: Vehicle.self)
        }
        let started = observer.started.value
        let finished = observer.finished.value
        #expect(started.count == 2)
        #expect(finished.count == 2)
        #expect(started[0].redactedHeaderFields[.authorization] == "<redacted>")
        #expect(started[0].redactedHeaderFields[.cookie] == "<redacted>")
        #expect(!started[0].url.absoluteString.contains("t0ken"))
        #expect(started[0].url.absoluteString.contains("page=2"))
        #expect(finished[0].id == started[0].id)
        #expect(finished[0].status == 200)
        #expect(finished[0].bytesReceived == 5)
        #expect(finished[0].error == nil)
        #expect(finished[1].operation == "GET missing")
        #expect(finished[1].error?.code == .unacceptableContentType)
    }
}
