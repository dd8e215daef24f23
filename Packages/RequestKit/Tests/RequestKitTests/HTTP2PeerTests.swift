import Foundation
import HTTPTypes
import ModelKitTesting
import ProcessTesting
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting
import Testing

/// Debian's nginx, the HTTP/2 server many APIs sit behind.
private let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// An nginx serving HTTP/2 over TLS on a free loopback port, as a child of the test process, with a configuration
/// that makes it close connections often: at most 4 concurrent streams per connection, and a GOAWAY after 50
/// requests on a connection. Every request it processed is a line in its access log.
final class NginxServer: Sendable {
    let port: Int
    let folder: URL
    let authority: TestCertificateAuthority
    private let child: ChildProcess

    var baseURL: String { "https://127.0.0.1:\(port)/" }

    init(binary: String) async throws {
        authority = try TestCertificateAuthority()
        folder = authority.directory.appending(path: "nginx", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        port = try await closedLoopbackPort()
        let root = folder.path
        let configuration = """
            daemon off;
            worker_processes 1;
            pid \(root)/nginx.pid;
            error_log \(root)/error.log warn;
            events { worker_connections 1024; }
            http {
                access_log \(root)/access.log;
                client_body_temp_path \(root)/body;
                proxy_temp_path \(root)/proxy;
                fastcgi_temp_path \(root)/fastcgi;
                uwsgi_temp_path \(root)/uwsgi;
                scgi_temp_path \(root)/scgi;
                server {
                    listen 127.0.0.1:\(port) ssl http2;
                    ssl_certificate \(authority.directory.path)/server.pem;
                    ssl_certificate_key \(authority.directory.path)/server.key;
                    http2_max_concurrent_streams 4;
                    keepalive_requests 50;
                    location / { default_type text/plain; return 200 "served $request_uri\\n"; }
                }
            }
            """
        let file = folder.appending(path: "nginx.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        child = try ChildProcess(binary, arguments: ["-p", root, "-c", file.path], error: .collect)
        // Ready once it accepts connections.
        for _ in 0..<100 {
            if (try? LoopbackProbe.connects(port: port)) == true { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        child.send(signal: SIGTERM)
        throw NginxDidNotStart(log: await child.finished().errorText)
    }

    /// The lines of the access log: one per request nginx processed.
    func processedRequests() throws -> [String] {
        let text = try String(contentsOf: folder.appending(path: "access.log"), encoding: .utf8)
        return text.split(separator: "\n").map(String.init)
    }

    func stop() async {
        child.send(signal: SIGQUIT)
        _ = await child.finished()
        authority.remove()
    }
}

struct NginxDidNotStart: Error, CustomStringConvertible {
    let log: String
    var description: String { "nginx did not start: \(log)" }
}

/// A free loopback port: one the system picked for a listener that is closed again.
private func closedLoopbackPort() async throws -> Int {
    let server = try await TestServer.start(handler: { _ in .status(200) })
    let port = server.port
    try await server.shutdown()
    return port
}

/// Whether a TCP connection to a loopback port succeeds.
private enum LoopbackProbe {
    static func connects(port: Int) throws -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// HTTP/2 against nginx: requests the server did not process are sent again, with or without a retry policy, and
/// none is sent twice.
@Suite(.enabled(if: nginx != nil, "nginx is not installed (Scripts/install-deps installs it)"))
struct HTTP2PeerTests {
    @Test func concurrentGetsThroughGoAwaysAndStreamLimitsAllArriveExactlyOnce() async throws {
        let server = try await NginxServer(binary: try #require(nginx))
        var transportConfiguration = AsyncHTTPClientTransport.Configuration()
        transportConfiguration.tls = try server.authority.clientTLSConfiguration()
        let recorder = AttemptRecorder()
        do {
            let failures = try await AsyncHTTPClientTransport.withTransport(configuration: transportConfiguration) {
                transport in
                var configuration = RequestClient.Configuration()
                configuration.observers = [recorder]
                let client = RequestClient(
                    environment: try ServiceEnvironment(name: "nginx", baseURL: server.baseURL),
                    transport: transport,
                    configuration: configuration
                )
                return await withTaskGroup(of: String?.self) { group in
                    for index in 0..<300 {
                        group.addTask {
                            do {
                                let response = try await client.get("item/\(index)")
                                return response.value.text == "served /item/\(index)\n" ? nil : "\(index): wrong body"
                            } catch {
                                return "\(index): \(error)"
                            }
                        }
                    }
                    var failures: [String] = []
                    for await failure in group {
                        if let failure { failures.append(failure) }
                    }
                    return failures
                }
            }
            #expect(failures.isEmpty, "\(failures.count) failed: \(failures.prefix(5))")
            let processed = try server.processedRequests()
            #expect(processed.count == 300, "nginx processed \(processed.count) requests")
            let paths = Set(processed.compactMap { $0.split(separator: "\"").dropFirst().first })
            #expect(paths.count == 300, "every request processed once")
            // Six GOAWAYs: the streams above each one's last stream ID went out again, and the observers saw it.
            let replays = recorder.replays.value
            #expect(!replays.isEmpty, "no request was replayed: nginx's GOAWAYs did not cut any stream")
            #expect(replays.allSatisfy { $0.error.isConnectionLost && $0.method == .get && $0.attempt == 1 })
        }
        await server.stop()
    }
}
