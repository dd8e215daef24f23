/// A model shared between services: a value with a typed identifier that encodes the same everywhere.
///
/// Conform a struct and give it an `id` of type ``ModelID``; `Codable`, `Hashable` and `Sendable` usually
/// come synthesised. Encode and decode it with ``ModelCoding``.
///
/// ```swift
/// struct Vehicle: Model {
///     var id: ModelID<Vehicle>
///     var plate: String
///     var modelYear: Int
/// }
/// let vehicle = Vehicle(id: ModelID(), plate: "B-AB 123", modelYear: 2021)
/// ```
public protocol Model: Codable, Sendable, Hashable, Identifiable where ID == ModelID<Self> {}
