import Foundation
import ModelKit

/// Where an `--offline` read came from, said on standard error with its age, so that old data never passes for
/// fleetd's answer of today.
enum OfflineSource: Sendable, Hashable {
    /// The offline copy that `fleet sync` made.
    case copy(environment: String, syncedAt: Date)
    /// fleet's HTTP cache, holding fleetd's answer of `answeredAt`; `copySyncedAt` is when the offline copy, which
    /// did not have the answer, was synced, or `nil` when it never was.
    case cache(environment: String, answeredAt: Date, copySyncedAt: Date?)

    /// One line for standard error, such as
    /// `note: from the offline copy of "local", synced at 2024-05-01T09:30:00Z (3 hours ago)`.
    func note(now: Date = Date()) -> String {
        switch self {
        case .copy(let environment, let syncedAt):
            return "note: from the offline copy of \"\(environment)\", synced at \(Self.describe(syncedAt, now: now))"
        case .cache(let environment, let answeredAt, let copySyncedAt):
            let copy =
                copySyncedAt.map {
                    "the offline copy of \"\(environment)\" (synced at \(Self.describe($0, now: now))) does not hold it"
                } ?? "the offline copy of \"\(environment)\" was never synced ('fleet sync' makes it)"
            return "note: from fleet's HTTP cache, fleetd's answer at \(Self.describe(answeredAt, now: now)); \(copy)"
        }
    }

    /// `2024-05-01T09:30:00Z (3 hours ago)`: the time in UTC, to the second, and how long ago it was.
    static func describe(_ date: Date, now: Date) -> String {
        let second = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        let time = ModelCoding.timestamp(second) ?? "\(second)"
        return "\(time) (\(age(of: date, now: now)))"
    }

    /// `just now`, `40 seconds ago`, `1 minute ago`, `3 hours ago`, `12 days ago`.
    static func age(of date: Date, now: Date) -> String {
        let seconds = Int(max(0, now.timeIntervalSince(date)))
        let (count, unit): (Int, String) =
            switch seconds {
            case ..<1: (0, "")
            case ..<60: (seconds, "second")
            case ..<3_600: (seconds / 60, "minute")
            case ..<86_400: (seconds / 3_600, "hour")
            default: (seconds / 86_400, "day")
            }
        return count == 0 ? "just now" : "\(count) \(unit)\(count == 1 ? "" : "s") ago"
    }
}
