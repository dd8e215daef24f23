/// One API version's shape of a canonical model, with conversions both ways.
///
/// The canonical model is what the service stores and works with; a representation is what one API version
/// sends and receives. Converting to an older representation may drop fields; converting such a representation
/// back needs the existing canonical value to restore them, which ``canonical(updating:)`` receives.
///
/// ```swift
/// enum V1 {
///     struct Vehicle: VersionedRepresentation {
///         static let version = APIVersion.v1
///         var id: ModelID<Fleet.Vehicle>
///         var plate: String
///
///         init(canonical: Fleet.Vehicle) {
///             id = canonical.id
///             plate = canonical.plate   // v1 has no mileage: dropped
///         }
///
///         func canonical(updating existing: Fleet.Vehicle?) throws -> Fleet.Vehicle {
///             guard var vehicle = existing else {
///                 throw VersioningError(.missingCanonical, detail: "v1 lacks mileage")
///             }
///             vehicle.plate = plate
///             return vehicle
///         }
///     }
/// }
/// ```
public protocol VersionedRepresentation<Canonical>: Codable, Sendable {
    /// The canonical model this represents.
    associatedtype Canonical: Sendable

    /// The API version this representation belongs to.
    static var version: APIVersion { get }

    /// The representation of a canonical value. Document any fields it drops.
    init(canonical: Canonical)

    /// The canonical value this representation stands for.
    ///
    /// - Parameter existing: The current canonical value, when there is one (an update). Representations that
    ///   lack fields of the canonical model take those fields from it; representations that carry every field
    ///   may ignore it.
    /// - Throws: ``VersioningError`` (``VersioningError/Code/missingCanonical`` when fields are missing and no
    ///   existing value was given, ``VersioningError/Code/conversionFailed`` for values the canonical model
    ///   cannot take), or any error of your own.
    func canonical(updating existing: Canonical?) throws -> Canonical
}

extension VersionedRepresentation {
    /// The canonical value for a representation that needs no existing value; see ``canonical(updating:)``.
    public func canonical() throws -> Canonical {
        try canonical(updating: nil)
    }
}
