import Foundation

/// Splits bytes arriving in chunks into lines, as a state machine driven without I/O.
///
/// A line ends at LF, CR or CR LF (a CR LF split between two chunks counts once). The terminator is not part of the
/// line. A line longer than ``maximumLength`` bytes throws ``RequestKitError/Code/bodyTooLarge`` as soon as the
/// limit is passed, so a body without line breaks is never held whole.
struct LineSplitter: Sendable {
    /// The longest line accepted, in bytes.
    let maximumLength: Int
    /// The bytes of the line being assembled.
    private var partial: [UInt8] = []
    /// The chunk being split and how far it has been read.
    private var chunk = Data()
    private var offset = 0
    /// Whether the last byte seen was a CR, so an LF right after it ends no line of its own.
    private var afterCR = false

    init(maximumLength: Int) {
        self.maximumLength = maximumLength
    }

    /// Hands over the next chunk; call it only when ``nextLine()`` returned `nil`.
    mutating func append(_ data: Data) {
        chunk = data
        offset = chunk.startIndex
    }

    /// The next complete line, or `nil` when more bytes are needed.
    mutating func nextLine() throws(RequestKitError) -> [UInt8]? {
        let end = chunk.endIndex
        while offset < end {
            if afterCR {
                afterCR = false
                if chunk[offset] == UInt8(ascii: "\n") {
                    offset += 1
                    continue
                }
            }
            let rest = chunk[offset..<end]
            guard let terminator = rest.firstIndex(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") })
            else {
                try checkLength(adding: rest.count)
                partial.append(contentsOf: rest)
                offset = end
                return nil
            }
            try checkLength(adding: terminator - offset)
            partial.append(contentsOf: chunk[offset..<terminator])
            afterCR = chunk[terminator] == UInt8(ascii: "\r")
            offset = terminator + 1
            defer { partial.removeAll(keepingCapacity: true) }
            return partial
        }
        return nil
    }

    /// The last line when the body ended without a terminator after it, if there is one.
    mutating func finish() -> [UInt8]? {
        guard !partial.isEmpty else { return nil }
        defer { partial = [] }
        return partial
    }

    private func checkLength(adding count: Int) throws(RequestKitError) {
        guard partial.count + count <= maximumLength else {
            throw RequestKitError(
                .bodyTooLarge,
                subject: "response line",
                reason: "a line is longer than the limit of \(maximumLength) bytes"
            )
        }
    }
}
