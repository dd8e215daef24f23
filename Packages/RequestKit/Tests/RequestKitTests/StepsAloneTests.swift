import Foundation
import HTTPTypes
import ModelKitTesting
import Testing

@testable import RequestKit

/// RequestKit's own steps called on their own, with a `next` made from a closure (`MiddlewareNext.init`), as a
/// test of a user's step would call it.
struct StepsAloneTests {
    private func request(_ method: HTTPRequest.Method = .get) throws -> ClientRequest {
        ClientRequest(method: method, url: try #require(URL(string: "http://127.0.0.1:9/vehicles")))
    }

    @Test func retryOnItsOwnRetriesAndNumbersTheAttempts() async throws {
        let step = RetryMiddleware(
            policy: RetryPolicy(maximumAttempts: 3, initialBackoff: .milliseconds(1), jitter: .none),
            observers: []
        )
        let attempts = LockedValue<[Int]>([])
        let request = try request()
        let response = try await step.intercept(
            request,
            next: MiddlewareNext { sent in
                attempts.update { $0.append(sent.attempt) }
                let status: HTTPResponse.Status = attempts.value.count < 3 ? .serviceUnavailable : .ok
                return ClientResponse(status: status, url: sent.url)
            }
        )
        #expect(response.status == .ok)
        #expect(attempts.value == [1, 2, 3])
    }

    @Test func retryOnItsOwnPassesOtherAnswersOnOnce() async throws {
        let step = RetryMiddleware(policy: RetryPolicy(), observers: [])
        let attempts = LockedValue(0)
        let request = try request()
        let response = try await step.intercept(
            request,
            next: MiddlewareNext { sent in
                attempts.update { $0 += 1 }
                return ClientResponse(status: .notFound, url: sent.url)
            }
        )
        #expect(response.status == .notFound)
        #expect(attempts.value == 1)
    }

    @Test func authenticationOnItsOwnSendsTheBearerToken() async throws {
        let step = AuthenticationMiddleware(
            authenticator: BearerTokenAuthenticator(token: "first") { _ in "second" }
        )
        let sentTokens = LockedValue<[String?]>([])
        let request = try request()
        let response = try await step.intercept(
            request,
            next: MiddlewareNext { sent in
                sentTokens.update { $0.append(sent.headerFields[.authorization]) }
                let status: HTTPResponse.Status = sentTokens.value.count == 1 ? .unauthorized : .ok
                return ClientResponse(status: status, url: sent.url)
            }
        )
        #expect(response.status == .ok)
        #expect(sentTokens.value == ["Bearer first", "Bearer second"])
        // The request handed in is left as it was.
        #expect(request.headerFields[.authorization] == nil)
    }

    @Test func theCacheOnItsOwnStoresAnAnswerAndServesItAgain() async throws {
        let step = HTTPCache(store: MemoryCacheStore()).middleware
        let sent = LockedValue(0)
        let request = try request()
        let next = MiddlewareNext { outgoing in
            sent.update { $0 += 1 }
            return ClientResponse(
                status: .ok,
                headerFields: [.cacheControl: "max-age=60", .contentType: "text/plain"],
                body: ClientResponse.Body(data: Data("stored".utf8)),
                url: outgoing.url
            )
        }
        let first = try await step.intercept(request, next: next)
        // The answer is stored once its body has been read to the end.
        #expect(try await first.body.collect(upTo: 1024) == Data("stored".utf8))
        let second = try await step.intercept(request, next: next)
        #expect(try await second.body.collect(upTo: 1024) == Data("stored".utf8))
        #expect(sent.value == 1)
        let cacheStatus = try #require(HTTPField.Name("Cache-Status"))
        #expect(second.headerFields[cacheStatus]?.contains("hit") == true)
    }
}
