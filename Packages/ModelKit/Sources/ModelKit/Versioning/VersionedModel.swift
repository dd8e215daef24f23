public import Foundation

/// The API versions of one canonical model, picked by ``APIVersion`` at run time.
///
/// Register each version's ``VersionedRepresentation`` once, then encode and decode canonical values in the
/// version a request asks for. Bytes go through ``ModelCoding``, so decoding failures are
/// ``ModelDecodingError``s.
///
/// ```swift
/// let vehicles = VersionedModel<Vehicle>(V1.Vehicle.self, V2.Vehicle.self)
/// let body = try vehicles.encode(vehicle, as: .v1)          // v1's JSON, v2-only fields dropped
/// let updated = try vehicles.decode(body, as: .v1, updating: vehicle)
/// ```
public struct VersionedModel<Canonical: Sendable>: Sendable {
    private struct Entry: Sendable {
        let representation: any VersionedRepresentation<Canonical>.Type
        let encode: @Sendable (Canonical) throws -> Data
        let encodeJSON: @Sendable (Canonical) throws -> JSONValue
        let decode: @Sendable (Data, Canonical?) throws -> Canonical
    }

    private var entries: [APIVersion: Entry] = [:]

    /// Registers representations; each version may appear once (registering a version twice is a programming
    /// error and stops the program).
    public init(_ representations: any VersionedRepresentation<Canonical>.Type...) {
        for representation in representations {
            register(representation)
        }
    }

    private mutating func register<R: VersionedRepresentation<Canonical>>(_ representation: R.Type) {
        precondition(entries[R.version] == nil, "VersionedModel: \(R.version) is registered twice")
        entries[R.version] = Entry(
            representation: representation,
            encode: { canonical in try ModelCoding.encode(R(canonical: canonical)) },
            encodeJSON: { canonical in
                try ModelCoding.decode(JSONValue.self, from: ModelCoding.encode(R(canonical: canonical)))
            },
            decode: { data, existing in
                try ModelCoding.decode(R.self, from: data).canonical(updating: existing)
            }
        )
    }

    /// The registered versions, oldest first.
    public var versions: [APIVersion] {
        entries.keys.sorted()
    }

    /// The newest registered version, or `nil` when none is registered.
    public var latest: APIVersion? {
        entries.keys.max()
    }

    /// Whether a representation is registered for `version`.
    public func supports(_ version: APIVersion) -> Bool {
        entries[version] != nil
    }

    /// The representation type registered for `version`.
    public func representation(
        for version: APIVersion
    ) throws(VersioningError) -> any VersionedRepresentation<Canonical>.Type {
        try entry(for: version).representation
    }

    /// `value` in `version`'s representation, encoded with ``ModelCoding``.
    ///
    /// - Throws: ``VersioningError`` for an unsupported version; `EncodingError` from encoding.
    public func encode(_ value: Canonical, as version: APIVersion) throws -> Data {
        try entry(for: version).encode(value)
    }

    /// `value` in `version`'s representation as a ``JSONValue``.
    public func jsonValue(_ value: Canonical, as version: APIVersion) throws -> JSONValue {
        try entry(for: version).encodeJSON(value)
    }

    /// Decodes `version`'s representation and converts it to the canonical model.
    ///
    /// - Parameters:
    ///   - data: The JSON body in `version`'s representation.
    ///   - version: The API version the body is written in.
    ///   - existing: The current canonical value for an update; representations that lack fields take them from
    ///     it.
    /// - Throws: ``VersioningError`` for an unsupported version or a failed conversion, ``ModelDecodingError``
    ///   for bytes that do not decode.
    public func decode(_ data: Data, as version: APIVersion, updating existing: Canonical? = nil) throws -> Canonical {
        try entry(for: version).decode(data, existing)
    }

    private func entry(for version: APIVersion) throws(VersioningError) -> Entry {
        guard let entry = entries[version] else {
            let supported = versions.map(\.description).joined(separator: ", ")
            throw VersioningError(.unsupportedVersion, detail: "\(version) (supported: \(supported))")
        }
        return entry
    }
}
