public import FleetModels

/// The filters of a vehicle list; `nil` members do not filter.
public struct VehicleFilter: Sendable, Hashable {
    /// Only this make (exact match).
    public var make: String?
    /// Only this model year.
    public var modelYear: Int?
    /// Only vehicles that are (`true`) or are not (`false`) due for maintenance.
    public var due: Bool?

    /// A filter.
    public init(make: String? = nil, modelYear: Int? = nil, due: Bool? = nil) {
        self.make = make
        self.modelYear = modelYear
        self.due = due
    }
}

/// One page of a list: the vehicles, and the plate to continue after when there are more.
public struct VehicleListPage: Sendable {
    /// The vehicles, in plate order.
    public var vehicles: [Vehicle]
    /// The last plate of this page when another page follows.
    public var continueAfter: String?

    /// A page.
    public init(vehicles: [Vehicle], continueAfter: String?) {
        self.vehicles = vehicles
        self.continueAfter = continueAfter
    }
}
