public import Foundation

/// Converts UUIDs to and from their 16 big-endian bytes, the form ids and UUID columns are stored in.
@usableFromInline
enum UUIDBytes {
    @usableFromInline
    static func data(_ uuid: UUID) -> Data {
        withUnsafeBytes(of: uuid.uuid) { Data($0) }
    }

    @usableFromInline
    static func uuid(_ data: Data) -> UUID? {
        guard data.count == 16 else { return nil }
        let raw = [UInt8](data)
        return UUID(
            uuid: (
                raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7],
                raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15]
            )
        )
    }

    /// Orders UUIDs by their bytes, the order SQLite gives their blobs.
    static func less(_ lhs: UUID, _ rhs: UUID) -> Bool {
        var a = lhs.uuid
        var b = rhs.uuid
        return withUnsafeBytes(of: &a) { x in
            withUnsafeBytes(of: &b) { y in
                x.lexicographicallyPrecedes(y)
            }
        }
    }
}
