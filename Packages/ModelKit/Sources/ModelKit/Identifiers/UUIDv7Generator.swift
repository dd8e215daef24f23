import Foundation

/// Generates strictly increasing version 7 UUIDs for this process.
///
/// Layout (RFC 9562, section 5.7): bits 0–47 Unix time in milliseconds, 48–51 version `0111`, 52–63 and 66–127
/// a 74-bit field, 64–65 variant `10`. A new millisecond starts the 74-bit field at a random value with its top
/// bit clear (headroom for increments); within the same millisecond, or when the clock steps back, the previous
/// identifier's field is incremented by one, carrying into the timestamp if it overflows. So every identifier
/// is greater than the one before, which is RFC 9562's "monotonic random" method.
final class UUIDv7Generator: @unchecked Sendable {
    // @unchecked Sendable: the mutable state (`lastMilliseconds`, `counterHigh`, `counterLow`) is read and
    // written only while `lock` is held, and `lock` itself is thread-safe.

    static let shared = UUIDv7Generator()

    private static let lowMask: UInt64 = (1 << 62) - 1

    private let lock = NSLock()
    private var lastMilliseconds: UInt64 = 0
    /// The upper 12 bits of the 74-bit field (`rand_a`).
    private var counterHigh: UInt64 = 0
    /// The lower 62 bits of the 74-bit field (`rand_b`).
    private var counterLow: UInt64 = 0

    /// The next identifier, using the current wall clock.
    func next() -> UUID {
        let now = Date().timeIntervalSince1970 * 1000
        let milliseconds = now > 0 ? UInt64(now) : 0
        let (timestamp, high12, low62) = lock.withLock { () -> (UInt64, UInt64, UInt64) in
            if milliseconds > lastMilliseconds {
                var random = SystemRandomNumberGenerator()
                lastMilliseconds = milliseconds
                counterHigh = random.next() & 0x7FF
                counterLow = random.next() & Self.lowMask
            } else if counterLow < Self.lowMask {
                counterLow += 1
            } else {
                counterLow = 0
                if counterHigh < 0xFFF {
                    counterHigh += 1
                } else {
                    counterHigh = 0
                    lastMilliseconds += 1
                }
            }
            return (lastMilliseconds, counterHigh, counterLow)
        }
        let high = (timestamp & 0xFFFF_FFFF_FFFF) << 16 | 0x7000 | high12
        let low = 0x8000_0000_0000_0000 | low62
        return Self.uuid(high: high, low: low)
    }

    /// Builds a UUID from its two big-endian 64-bit halves.
    static func uuid(high: UInt64, low: UInt64) -> UUID {
        let h = high.bigEndian
        let l = low.bigEndian
        return withUnsafeBytes(of: (h, l)) { raw in
            UUID(
                uuid: (
                    raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7],
                    raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15]
                )
            )
        }
    }

    /// The two big-endian 64-bit halves of a UUID.
    static func halves(of uuid: UUID) -> (high: UInt64, low: UInt64) {
        withUnsafeBytes(of: uuid.uuid) { raw in
            var high: UInt64 = 0
            var low: UInt64 = 0
            for index in 0..<8 {
                high = high << 8 | UInt64(raw[index])
                low = low << 8 | UInt64(raw[index + 8])
            }
            return (high, low)
        }
    }
}
