extension Endpoint {
    /// Returns a copy that sends HTTP Basic credentials (see ``RequestDecorator/basicAuthorization(username:password:)``).
    public func basicAuthorization(username: String, password: String) -> Endpoint {
        var copy = self
        copy.decorators.append(.basicAuthorization(username: username, password: password))
        return copy
    }

    /// Returns a copy that sends a bearer token (see ``RequestDecorator/bearerToken(_:)-(String)``).
    public func bearerToken(_ token: String) -> Endpoint {
        var copy = self
        copy.decorators.append(.bearerToken(token))
        return copy
    }
}
