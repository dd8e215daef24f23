import CoreMetrics
import Foundation
import HTTPTypes
import InMemoryLogging
import Logging
import ModelKit
import ModelKitTesting
import RequestKit
import RequestKitTesting
import Testing

extension InMemoryLogHandler {
    /// swift-log's in-memory handler, keeping every level (its default starts at `info`).
    static func keepingEverything() -> InMemoryLogHandler {
        var handler = InMemoryLogHandler()
        handler.logLevel = .trace
        return handler
    }
}

/// Records counter increments and timer values by label and dimensions.
final class RecordingMetrics: MetricsFactory {
    let values = LockedValue<[String: [Int64]]>([:])

    final class Handler: CounterHandler, RecorderHandler, TimerHandler {
        let key: String
        let values: LockedValue<[String: [Int64]]>
        init(key: String, values: LockedValue<[String: [Int64]]>) {
            self.key = key
            self.values = values
        }
        func increment(by amount: Int64) { values.update { $0[key, default: []].append(amount) } }
        func reset() {}
        func record(_ value: Int64) { values.update { $0[key, default: []].append(value) } }
        func record(_ value: Double) { values.update { $0[key, default: []].append(Int64(value)) } }
        func recordNanoseconds(_ duration: Int64) { values.update { $0[key, default: []].append(duration) } }
    }

    private func handler(_ label: String, _ dimensions: [(String, String)]) -> Handler {
        let key = ([label] + dimensions.map { "\($0.0)=\($0.1)" }).joined(separator: " ")
        return Handler(key: key, values: values)
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        handler(label, dimensions)
    }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        handler(label, dimensions)
    }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        handler(label, dimensions)
    }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}

struct LoggingAndMetricsTests {
    @Test func theLoggingObserverLogsToTheHandedLoggerWithSecretsRedacted() async throws {
        let logs = InMemoryLogHandler.keepingEverything()
        let logger = Logger(label: "test") { _ in logs }
        var configuration = RequestClient.Configuration()
        configuration.observers = [LoggingObserver(logger: logger)]
        configuration.headerFields[.authorization] = "Bearer top-secret"
        configuration.headerFields[HTTPField.Name("X-API-Key")!] = "key-123"
        try await withClient(configuration: configuration, handler: { _ in .text("ok") }) { client, _ in
            _ = try await client.get("x", parameters: ["token": "t-456"])
        }
        let logged = logs.entries
        #expect(logged.map(\.message.description) == ["request started", "request finished"])
        let everything = logged.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
        #expect(!everything.contains("top-secret"))
        #expect(!everything.contains("key-123"))
        #expect(!everything.contains("t-456"))
        #expect(everything.contains("<redacted>"))
        #expect(logged[1].metadata["response.status"] == "200")
    }

    @Test func theMetricsObserverRecordsPerOperationAndStatus() async throws {
        let metrics = RecordingMetrics()
        var configuration = RequestClient.Configuration()
        configuration.observers = [MetricsObserver(label: "fleet", factory: metrics)]
        try await withClient(configuration: configuration, handler: fleetHandler) { client, _ in
            _ = try await client.send(FleetAPI.V1.vehicle(7))
            _ = try? await client.send(FleetAPI.V1.vehicle(8))
        }
        let values = metrics.values.value
        #expect(values["fleet.requests operation=vehicles.get method=GET status=200"] == [1])
        #expect(values["fleet.requests operation=vehicles.get method=GET status=404"] == [1])
        #expect(values["fleet.duration operation=vehicles.get method=GET status=200"]?.count == 1)
    }

    @Test func theMetricsObserverCountsRequestsInFlightAttemptsAndCacheResults() async throws {
        let metrics = RecordingMetrics()
        let count = LockedValue(0)
        let handler: TestServer.Handler = { _ in
            count.update { $0 += 1 }
            guard count.value > 1 else { return .status(503) }
            return TestResponse(headers: [("Cache-Control", "max-age=60")], body: .data(Data("ok".utf8)))
        }
        var configuration = RequestClient.Configuration()
        configuration.observers = [MetricsObserver(label: "fleet", factory: metrics)]
        configuration.cache = HTTPCache()
        configuration.retryPolicy = RetryPolicy(maximumAttempts: 2, initialBackoff: .milliseconds(1), jitter: .none)
        try await withClient(configuration: configuration, handler: handler) { client, _ in
            _ = try await client.get("fleet")
            _ = try await client.get("fleet")
        }
        let values = metrics.values.value
        // The meter goes up as each request starts and down as it ends.
        #expect(values["fleet.in_flight"] == [1, 0, 1, 0])
        #expect(values["fleet.attempts operation=GET fleet method=GET status=503"] == [1])
        #expect(values["fleet.attempts operation=GET fleet method=GET status=200"] == [1])
        #expect(values["fleet.retries operation=GET fleet method=GET status=503"] == [1])
        #expect(values["fleet.cache operation=GET fleet result=miss"] == [1])
        #expect(values["fleet.cache operation=GET fleet result=hit"] == [1])
    }
}
