import FleetCLI
import FleetTestSupport
import Foundation
import Testing

/// The loopback OTLP/HTTP receiver `Scripts/test-all` starts: its address and the file it writes one JSON object per
/// span to.
enum OTLPReceiver {
    static let location: (endpoint: String, spans: URL)? = {
        let environment = ProcessInfo.processInfo.environment
        guard let endpoint = environment["FLEET_OTLP_ENDPOINT"], let file = environment["FLEET_OTLP_SPANS_FILE"]
        else { return nil }
        return (endpoint, URL(fileURLWithPath: file))
    }()

    static let skipReason =
        "FLEET_OTLP_ENDPOINT and FLEET_OTLP_SPANS_FILE are not set; Scripts/test-all starts Scripts/otlp-receiver"
}

/// One `fleet --trace` command against fleetd on PostgreSQL, exporting to a receiver built on the OpenTelemetry
/// project's own protobuf definitions (`Scripts/otlp-receiver`, which `Scripts/test-all` starts): one trace across
/// the CLI's, the daemon's and the store's spans, linked parent to child, with OpenTelemetry's attribute names.
@Suite(
    "one trace from fleet through fleetd into the store",
    .serialized,
    .enabled(if: DaemonProcess.located.binary != nil, Comment(rawValue: DaemonProcess.located.reason)),
    .enabled(if: TestPostgres.url != nil, Comment(rawValue: TestPostgres.skipReason)),
    .enabled(if: OTLPReceiver.location != nil, Comment(rawValue: OTLPReceiver.skipReason))
)
struct TracingEndToEndTests {
    /// A span as the receiver wrote it.
    struct ReceivedSpan {
        var traceID: String
        var spanID: String
        var parentSpanID: String
        var name: String
        var kind: String
        var service: String
        var attributes: [String: Any]

        init?(_ object: [String: Any]) {
            guard let traceID = object["trace_id"] as? String, let spanID = object["span_id"] as? String,
                let name = object["name"] as? String, let kind = object["kind"] as? String
            else { return nil }
            self.traceID = traceID
            self.spanID = spanID
            self.parentSpanID = object["parent_span_id"] as? String ?? ""
            self.name = name
            self.kind = kind
            self.service = object["service_name"] as? String ?? ""
            self.attributes = object["attributes"] as? [String: Any] ?? [:]
        }

        func string(_ key: String) -> String? { attributes[key] as? String }
        func int(_ key: String) -> Int? { (attributes[key] as? NSNumber)?.intValue }
    }

    /// The spans in the receiver's file.
    static func receivedSpans(in file: URL) -> [ReceivedSpan] {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]).flatMap(ReceivedSpan.init)
        }
    }

    @Test("fleet vehicles add: the CLI's span, the request and its attempt, fleetd's server span and the store's")
    func oneTraceAcrossTheCLIDaemonAndStore() async throws {
        let receiver = try #require(OTLPReceiver.location)
        let binary = try #require(DaemonProcess.located.binary)
        let database = try #require(TestPostgres.freshSchema("trace"))
        let service = "fleetd-trace-\(UUID().uuidString.prefix(8).lowercased())"
        let daemon = try await DaemonProcess(
            binary: binary,
            extraArguments: [
                "--database", database.url, "--trace-endpoint", receiver.endpoint, "--trace-service-name", service,
                "--log-level", "debug",
            ]
        )
        defer { daemon.removeData() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-trace-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var cli = FleetEndToEndTests.CLI(folder: folder)
        cli.environment["FLEET_TRACE_ENDPOINT"] = receiver.endpoint
        #expect(await cli.run(["env", "add", "trace", daemon.baseURL.absoluteString, "--use"]).code == 0)

        let plate = "TRACE-\(UUID().uuidString.prefix(6))"
        let added = await cli.run([
            "vehicles", "add", "--plate", plate, "--make", "Volvo", "--model", "FH16", "--year", "2021", "--trace",
        ])
        #expect(added.code == 0, "\(added.error)")

        // fleetd sends its spans in batches, within a second of their end; the CLI sent its own before returning.
        var spans: [ReceivedSpan] = []
        for _ in 0..<100 {
            spans = Self.receivedSpans(in: receiver.spans)
            let daemonSpans = spans.filter { $0.service == service }
            if daemonSpans.contains(where: { $0.kind == "SPAN_KIND_SERVER" }),
                daemonSpans.contains(where: { $0.string("db.system.name") != nil })
            {
                break
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(await daemon.stop() == 0)

        let server = try #require(
            spans.first {
                $0.service == service && $0.kind == "SPAN_KIND_SERVER" && $0.string("http.request.method") == "POST"
            },
            "fleetd's span of the POST"
        )
        let trace = spans.filter { $0.traceID == server.traceID }
        let byID = Dictionary(trace.map { ($0.spanID, $0) }, uniquingKeysWith: { first, _ in first })

        // The CLI: the command's span at the root, the request's span under it, the attempt's under that.
        let root = try #require(trace.first { $0.name == "fleet vehicles add" }, "the command's span")
        #expect(root.service == "fleet")
        #expect(root.parentSpanID.isEmpty)
        let request = try #require(
            trace.first { $0.service == "fleet" && $0.kind == "SPAN_KIND_INTERNAL" && $0.parentSpanID == root.spanID },
            "the request's span"
        )
        #expect(request.string("http.request.method") == "POST")
        #expect(request.int("http.response.status_code") == 201)
        let attempt = try #require(
            trace.first { $0.kind == "SPAN_KIND_CLIENT" && $0.parentSpanID == request.spanID },
            "the attempt's span"
        )
        #expect(attempt.service == "fleet")
        #expect(attempt.string("http.request.method") == "POST")
        #expect(attempt.string("server.address") == "127.0.0.1")
        #expect(attempt.int("server.port") == daemon.port)
        #expect(attempt.int("http.response.status_code") == 201)
        #expect(attempt.int("requestkit.attempt") == 1)

        // fleetd continued the trace from the attempt's traceparent.
        #expect(server.parentSpanID == attempt.spanID)
        #expect(server.string("http.route") == "/v2/vehicles")
        #expect(server.int("http.response.status_code") == 201)

        // The store's spans descend from the server's span, with OpenTelemetry's database attribute names, and no
        // bound value (the plate) in any attribute.
        let store = trace.filter { $0.service == service && $0.string("db.system.name") != nil }
        #expect(!store.isEmpty, "the store's spans")
        for span in store {
            #expect(span.string("db.system.name") == "postgresql")
            var ancestor = byID[span.parentSpanID]
            while let current = ancestor, current.spanID != server.spanID { ancestor = byID[current.parentSpanID] }
            #expect(ancestor?.spanID == server.spanID, "\(span.name) descends from the request's span")
            #expect(!span.attributes.values.contains { "\($0)".contains(plate) }, "\(span.name) holds no value")
        }
        #expect(store.contains { $0.string("db.collection.name") != nil })
        #expect(Set(trace.map(\.traceID)).count == 1)

        // fleetd's access log entry of the POST carries the trace and the request's span.
        let entry = try #require(
            daemon.logText.split(separator: "\n").first {
                $0.contains(#""http.route":"/v2/vehicles""#) && $0.contains("POST")
            },
            "the access log entry of the POST"
        )
        #expect(entry.contains(#""trace_id":"\#(server.traceID)""#), "\(entry)")
        #expect(entry.contains(#""span_id":"\#(server.spanID)""#), "\(entry)")
    }
}
