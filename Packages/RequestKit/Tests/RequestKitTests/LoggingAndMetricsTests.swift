import CoreMetrics
import Foundation
import HTTPTypes
import Logging
import ModelKit
import RequestKit
import RequestKitTesting
import Testing

/// Keeps every log record in memory.
struct CapturingLogHandler: LogHandler {
    let records: LockedValue<[(level: Logger.Level, message: String, metadata: Logger.Metadata)]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        records.update { $0.append((event.level, event.message.description, event.metadata ?? [:])) }
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
        let records = LockedValue<[(level: Logger.Level, message: String, metadata: Logger.Metadata)]>([])
        var logger = Logger(label: "test") { _ in CapturingLogHandler(records: records) }
        logger.logLevel = .trace
        var configuration = RequestClient.Configuration()
        configuration.observers = [LoggingObserver(logger: logger)]
        configuration.headerFields[.authorization] = "Bearer top-secret"
        configuration.headerFields[HTTPField.Name("X-API-Key")!] = "key-123"
        try await withClient(configuration: configuration, handler: { _ in .text("ok") }) { client, _ in
            _ = try await client.get("x", parameters: ["token": "t-456"])
        }
        let logged = records.value
        #expect(logged.map(\.message) == ["request started", "request finished"])
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
}
