public import Logging
import OTel
public import ServiceLifecycle
public import Tracing

/// Where and how an app sends its spans: swift-otel's tracer, exporting over OTLP/HTTP (protobuf) to a collector.
///
/// The packages never install a tracer; fleetd installs the one made here once, at start, and fleet binds it to the
/// task that runs one command. The exporter sends spans in batches from a service: run ``Exporter/service`` beside the
/// app (fleetd's service group, or a task around one fleet command) and shut it down gracefully last, which sends
/// what is left.
public struct TraceExport: Sendable {
    /// The collector's OTLP/HTTP base URL, such as `http://127.0.0.1:4318`; spans go to its `/v1/traces`.
    public var endpoint: String
    /// The `service.name` of the spans' resource.
    public var serviceName: String
    /// The share of new traces recorded, from 0 to 1. A trace that arrives with a parent follows the parent's
    /// decision, so one command's trace is whole across the CLI, the daemon and the store.
    public var samplingRatio: Double
    /// The longest one export, its retries included, may take: what the process's exit waits at most for a
    /// collector that does not answer.
    public var exportTimeout: Duration

    /// Creates export settings.
    public init(
        endpoint: String,
        serviceName: String,
        samplingRatio: Double = 1,
        exportTimeout: Duration = .seconds(10)
    ) {
        self.endpoint = endpoint
        self.serviceName = serviceName
        self.samplingRatio = samplingRatio
        self.exportTimeout = exportTimeout
    }

    /// The tracer, and the service that exports what it records.
    public struct Exporter: Sendable {
        /// Records spans, and reads and writes the W3C `traceparent` and `tracestate` header fields.
        public let tracer: any Tracer
        /// Sends the recorded spans in batches; its graceful shutdown sends the rest.
        public let service: any Service
        /// Adds `trace_id` and `span_id` of the current span to log entries.
        public let loggingMetadata: Logger.MetadataProvider
    }

    /// Makes the tracer and its exporting service.
    ///
    /// The standard `OTEL_…` environment variables that swift-otel reads still apply on top of these settings. A
    /// sampling ratio outside 0…1 is taken as the nearest end.
    ///
    /// - Throws: swift-otel's error when it cannot make the exporter.
    public func makeExporter(diagnostics: Logger) throws -> Exporter {
        let ratio = samplingRatio.isNaN ? 1 : min(max(samplingRatio, 0), 1)
        var configuration = OTel.Configuration.default
        if let sampler = OTel.Configuration.TracesConfiguration.SamplerConfiguration.parentBasedTraceIDRatio(
            ratio: ratio
        ) {
            configuration.traces.sampler = sampler
        }
        configuration.serviceName = serviceName
        configuration.diagnosticLogger = .custom(diagnostics)
        configuration.diagnosticLogLevel = .warning
        configuration.propagators = [.traceContext]
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        configuration.traces.enabled = true
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        let base = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        configuration.traces.otlpExporter.endpoint = base + "/v1/traces"
        // Spans leave within a second of ending, not the five seconds of OpenTelemetry's default.
        configuration.traces.batchSpanProcessor.scheduleDelay = .seconds(1)
        configuration.traces.batchSpanProcessor.exportTimeout = exportTimeout
        configuration.traces.otlpExporter.timeout = exportTimeout
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        return Exporter(
            tracer: backend.factory,
            service: backend.service,
            loggingMetadata: OTel.makeLoggingMetadataProvider()
        )
    }
}
