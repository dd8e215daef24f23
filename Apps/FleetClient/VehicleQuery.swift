/// The filters and paging of `GET /v2/vehicles`; the filters apply the same way to the offline copy.
public struct VehicleQuery: Sendable, Hashable {
    /// Only this make (exact match).
    public var make: String?
    /// Only this model year.
    public var modelYear: Int?
    /// Only vehicles that are (`true`) or are not (`false`) due for maintenance.
    public var due: Bool?
    /// Page size (1...500; the server's default is 50).
    public var limit: Int?
    /// The `nextCursor` of the previous page.
    public var cursor: String?

    /// A query; every member is optional.
    public init(make: String? = nil, modelYear: Int? = nil, due: Bool? = nil, limit: Int? = nil, cursor: String? = nil)
    {
        self.make = make
        self.modelYear = modelYear
        self.due = due
        self.limit = limit
        self.cursor = cursor
    }

    /// The query items, in the order the OpenAPI document lists them.
    public var queryItems: [(name: String, value: String)] {
        var items: [(name: String, value: String)] = []
        if let limit { items.append(("limit", String(limit))) }
        if let cursor { items.append(("cursor", cursor)) }
        if let make { items.append(("make", make)) }
        if let modelYear { items.append(("modelYear", String(modelYear))) }
        if let due { items.append(("due", due ? "true" : "false")) }
        return items
    }

    /// This query with another cursor.
    func with(cursor: String?) -> VehicleQuery {
        var copy = self
        copy.cursor = cursor
        return copy
    }
}
