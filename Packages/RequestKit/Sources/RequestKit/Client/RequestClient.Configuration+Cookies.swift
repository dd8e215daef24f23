extension RequestClient.Configuration {
    /// The cookie store the client sends cookies from and stores cookies into, or `nil` (the default) for none.
    ///
    /// Setting a store puts the step that sends and stores its cookies at the end of ``middleware`` (replacing one that is there);
    /// setting `nil` removes it.
    ///
    /// ```swift
    /// var configuration = RequestClient.Configuration()
    /// configuration.cookieStore = CookieStore()
    /// ```
    public var cookieStore: CookieStore? {
        get {
            middleware.lazy.compactMap { $0 as? CookieMiddleware }.first?.store
        }
        set {
            middleware.removeAll { $0 is CookieMiddleware }
            if let newValue { middleware.append(CookieMiddleware(store: newValue)) }
        }
    }
}
