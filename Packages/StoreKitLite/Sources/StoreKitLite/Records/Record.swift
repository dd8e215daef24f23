public import ModelKit

/// A value type StoreKitLite stores: one row of one entity.
///
/// A record has a typed, permanent, time-ordered `ModelKit.ModelID` from the moment it is created (so obtaining a
/// permanent ID needs no round trip), an initializer that makes a blank record for an ID (the store fills
/// it, as Core Data fills a fresh managed object), and a ``RecordSchema`` listing its stored columns, declared
/// once per type as a `static let`.
///
/// ```swift
/// struct Vehicle: Record {
///     var id: ModelID<Vehicle>
///     var plate = ""
///     var modelYear = 0
///     var mileage: Double?
///
///     init(id: ModelID<Vehicle>) { self.id = id }
///
///     static let schema = RecordSchema<Vehicle>(
///         "vehicles",
///         Column("plate", \.plate), Column("modelYear", \.modelYear), Column("mileage", \.mileage)
///     )
/// }
/// ```
public protocol Record: Sendable {
    /// The record's permanent identifier.
    var id: ModelID<Self> { get set }
    /// A record with every column at its default value.
    init(id: ModelID<Self>)
    /// The stored columns, derived once per type.
    static var schema: RecordSchema<Self> { get }
}

extension Record {
    /// The record's identifier type, so record declarations need not import ModelKit.
    public typealias ID = ModelID<Self>
}
