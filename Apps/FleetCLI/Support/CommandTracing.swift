import FleetTelemetry
import Foundation
import Logging
import ServiceLifecycle
import Tracing

/// `fleet --trace`: one command run in one trace, exported over OTLP/HTTP.
///
/// The tracer is bound to the command's task (`withTracer`), not installed for the process: the request client made
/// for the command picks it up, and nothing else in the process is traced. The command runs inside a root span named
/// after it; every request's span is a child of that span, and each attempt sends its context as `traceparent`, so
/// fleetd's spans continue the trace. The exporter's service runs beside the command and is shut down after it,
/// which sends the spans that are left before the process exits.
enum CommandTracing {
    /// Where spans go when `FLEET_TRACE_ENDPOINT` does not say: a collector on this machine, OTLP/HTTP's port.
    static let defaultEndpoint = "http://127.0.0.1:4318"

    /// Runs `body` in a span named `name`, exporting to `endpoint`; returns `body`'s exit code. When the exporter
    /// cannot be made, says so on standard error and runs `body` untraced.
    static func run(
        _ name: String,
        endpoint: String,
        context: CommandContext,
        _ body: () async -> Int32
    ) async -> Int32 {
        let diagnostics = Logger(label: "fleet.tracing") { label in
            StreamLogHandler.standardError(label: label)
        }
        let exporter: TraceExport.Exporter
        do {
            // A command waits at most a second at its end for a collector that does not answer.
            exporter = try TraceExport(endpoint: endpoint, serviceName: "fleet", exportTimeout: .seconds(1))
                .makeExporter(diagnostics: diagnostics)
        } catch {
            context.output.line("warning: cannot export traces to \(endpoint): \(error)", to: .standardError)
            return await body()
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(services: [.init(service: exporter.service)], logger: diagnostics)
        )
        let exporting = Task { try? await group.run() }
        let code = await withTracer(exporter.tracer) {
            await exporter.tracer.withSpan(name, ofKind: .internal) { span in
                let code = await body()
                span.attributes["process.exit.code"] = Int(code)
                if code != 0 { span.setStatus(SpanStatus(code: .error)) }
                return code
            }
        }
        await group.triggerGracefulShutdown()
        await exporting.value
        return code
    }
}
