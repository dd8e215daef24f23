import Foundation
import RequestKit
import Testing

struct ServiceEnvironmentTests {
    @Test(arguments: [
        ("https://api.example.com", "vehicles", "https://api.example.com/vehicles"),
        ("https://api.example.com/v1", "vehicles/7", "https://api.example.com/v1/vehicles/7"),
        ("https://api.example.com/v1/", "/vehicles", "https://api.example.com/v1/vehicles"),
        ("http://127.0.0.1:8080/", "health?verbose=1", "http://127.0.0.1:8080/health?verbose=1"),
    ])
    func relativePathsResolveAgainstTheBaseURL(base: String, path: String, expected: String) throws {
        let environment = try ServiceEnvironment(name: "test", baseURL: base)
        #expect(try environment.url(for: path).absoluteString == expected)
    }

    @Test(arguments: ["ftp://example.com", "/relative/only", "https://example.com/?q=1", "https://example.com/#top"])
    func unusableBaseURLsAreRefusedWithATypedError(base: String) {
        #expect {
            _ = try ServiceEnvironment(name: "bad", baseURL: base)
        } throws: { error in
            (error as? RequestKitError)?.code == .invalidEnvironment
        }
    }

    @Test func anEmptyNameIsRefused() {
        #expect(throws: RequestKitError.self) {
            _ = try ServiceEnvironment(name: "", baseURL: "https://example.com")
        }
    }

    @Test func absoluteURLsAreNotPaths() throws {
        let environment = try ServiceEnvironment(name: "local", baseURL: "http://127.0.0.1:1")
        #expect {
            _ = try environment.url(for: "https://elsewhere.example.com/steal")
        } throws: { error in
            (error as? RequestKitError)?.code == .invalidPath
        }
    }

    @Test func resolvedURLsStayCorrectWhenRepeatedAndPastTheCacheSize() throws {
        let environment = try ServiceEnvironment(name: "local", baseURL: "http://127.0.0.1:8080/api")
        for round in 0..<2 {
            for index in 0..<600 {
                let url = try environment.url(for: "/vehicles/\(index)")
                #expect(url.absoluteString == "http://127.0.0.1:8080/api/vehicles/\(index)", "round \(round)")
            }
        }
        #expect(try environment.url(for: "a/../b").absoluteString == "http://127.0.0.1:8080/api/b")
        // The cache is no part of the value: environments with the same name and URL stay equal.
        let fresh = try ServiceEnvironment(name: "local", baseURL: "http://127.0.0.1:8080/api")
        #expect(fresh == environment)
        #expect(Set([fresh, environment]).count == 1)
        #expect(try ServiceEnvironment(name: "other", baseURL: "http://127.0.0.1:8080/api") != environment)
    }

    @Test func descriptionNamesTheEnvironmentAndItsURL() throws {
        let environment = try ServiceEnvironment(name: "staging", baseURL: "https://staging.example.com/api")
        #expect(environment.description == "staging (https://staging.example.com/api/)")
    }
}
