/// Reads one column of a cursor's current row into a record, for ``RecordSchema/records(from:)``.
///
/// A non-generic struct, so that the closure is stored as it is called (an array of bare closures would store
/// them through a reabstraction thunk), and the closure gets the record by pointer and its offset as an argument,
/// so that it captures nothing: no context is retained and released for each value decoded.
@usableFromInline
struct ColumnDecoder: Sendable {
    /// The byte offset of the property in the record (0 when it is reached through its key path).
    @usableFromInline let offset: Int
    /// Decodes column `index` of `cursor` into the record at `record`, given `offset`; `false` when the stored
    /// value does not fit the property's type.
    @usableFromInline let decode:
        @Sendable (_ record: UnsafeMutableRawPointer, _ cursor: any StoreCursor, _ index: Int, _ offset: Int) -> Bool

    @inlinable
    init(
        offset: Int,
        decode: @escaping @Sendable (UnsafeMutableRawPointer, any StoreCursor, Int, Int) -> Bool
    ) {
        self.offset = offset
        self.decode = decode
    }
}
