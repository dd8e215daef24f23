/// Supplies the environment requests resolve against, and tells when it changes.
///
/// A single ``ServiceEnvironment`` is a provider that never changes; ``EnvironmentService`` holds named
/// environments and switches between them at run time.
public protocol EnvironmentProvider: Sendable {
    /// The environment in force now.
    var currentEnvironment: ServiceEnvironment { get }

    /// A stream of the environments switched to from now on. It never replays the current one.
    func changes() -> AsyncStream<ServiceEnvironment>
}
