import Fluent
import Foundation

/// A vehicle as Fluent stores it.
// @unchecked Sendable: Fluent models are mutable classes (as Fluent requires); each instance is made, filled and
// encoded by one request and never shared between tasks.
final class Vehicle: Model, @unchecked Sendable {
    static let schema = "vehicles"

    @ID(key: .id)
    var id: UUID?

    @Field(key: "plate")
    var plate: String

    @Field(key: "make")
    var make: String

    @Field(key: "model")
    var model: String

    @Field(key: "model_year")
    var modelYear: Int

    @Field(key: "flagged")
    var flagged: Bool

    @OptionalField(key: "last_serviced")
    var lastServiced: Date?

    @Field(key: "revision")
    var revision: Int

    init() {}
}

/// The table, with plates unique (every list is in plate order).
struct CreateVehicle: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("vehicles")
            .id()
            .field("plate", .string, .required)
            .field("make", .string, .required)
            .field("model", .string, .required)
            .field("model_year", .int, .required)
            .field("flagged", .bool, .required)
            .field("last_serviced", .datetime)
            .field("revision", .int, .required)
            .unique(on: "plate")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("vehicles").delete()
    }
}
