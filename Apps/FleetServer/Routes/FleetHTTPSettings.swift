/// What the routes need besides the fleet service.
public struct FleetHTTPSettings: Sendable {
    /// The bearer token writes need.
    public var token: String
    /// The largest request body accepted; larger bodies get 413.
    public var maximumBodyBytes: Int
    /// Page size of v2 lists without `limit`.
    public var defaultPageSize: Int
    /// Largest `limit` of a v2 list.
    public var maximumPageSize: Int

    /// Settings; the token is required, the rest has defaults.
    public init(token: String, maximumBodyBytes: Int = 64 * 1024, defaultPageSize: Int = 50, maximumPageSize: Int = 500)
    {
        self.token = token
        self.maximumBodyBytes = maximumBodyBytes
        self.defaultPageSize = defaultPageSize
        self.maximumPageSize = maximumPageSize
    }
}
