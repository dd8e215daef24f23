import ServiceLifecycle

/// Stops following the other daemons' writes on graceful shutdown, after the server (listed after it in the service
/// group) has finished its in-flight requests and before the store (listed before it) closes.
struct FeedShutdownService: Service {
    let service: FleetService

    func run() async throws {
        try? await gracefulShutdown()
        service.stopFollowing()
    }
}
