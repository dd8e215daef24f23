extension ServiceEnvironment: EnvironmentProvider {
    /// The environment itself: a constant environment.
    public var currentEnvironment: ServiceEnvironment { self }

    /// A stream that ends at once: a constant environment never changes.
    public func changes() -> AsyncStream<ServiceEnvironment> {
        AsyncStream { $0.finish() }
    }
}
