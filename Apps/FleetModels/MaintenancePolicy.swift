public import Foundation

/// The rule that decides when a vehicle is due for maintenance: when flagged, or when its last service is more
/// than ``intervalMonths`` months ago. A vehicle that was never serviced is due only when flagged.
public struct MaintenancePolicy: Sendable, Hashable {
    /// Months between services; 12 by default.
    public var intervalMonths: Int

    /// A policy with a service interval in months (at least 1).
    public init(intervalMonths: Int = 12) {
        self.intervalMonths = max(1, intervalMonths)
    }

    /// A Gregorian calendar in UTC, made once: making one per call measured as a visible share of a list
    /// request's CPU time.
    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar
    }()

    /// The newest last-service date that makes a vehicle due at `now`: anything serviced before it is due.
    public func cutoff(at now: Date) -> Date {
        Self.calendar.date(byAdding: .month, value: -intervalMonths, to: now) ?? now
    }

    /// Whether a vehicle with this flag and last service date is due at `now`.
    public func isDue(flagged: Bool, lastServiced: Date?, at now: Date) -> Bool {
        isDue(flagged: flagged, lastServiced: lastServiced, cutoff: cutoff(at: now))
    }

    /// Whether a vehicle with this flag and last service date is due, given ``cutoff(at:)`` (compute it once for
    /// many vehicles).
    public func isDue(flagged: Bool, lastServiced: Date?, cutoff: Date) -> Bool {
        if flagged { return true }
        guard let lastServiced else { return false }
        return lastServiced < cutoff
    }

    /// The moment from which a vehicle last serviced at `lastServiced` may be due: the service date plus the
    /// interval. The vehicle is not due before it (adding months and taking them away again lands on or before the
    /// date one started from, and ``cutoff(at:)`` only grows with time), so an answer derived earlier stays right
    /// until then.
    public func dueDate(lastServiced: Date) -> Date {
        Self.calendar.date(byAdding: .month, value: intervalMonths, to: lastServiced) ?? lastServiced
    }

    /// `vehicle` with ``Maintenance/due`` set by this policy.
    public func applied(to vehicle: Vehicle, at now: Date) -> Vehicle {
        applied(to: vehicle, cutoff: cutoff(at: now))
    }

    /// `vehicle` with ``Maintenance/due`` set by this policy, given ``cutoff(at:)``.
    public func applied(to vehicle: Vehicle, cutoff: Date) -> Vehicle {
        var vehicle = vehicle
        vehicle.maintenance.due = isDue(
            flagged: vehicle.maintenance.flagged,
            lastServiced: vehicle.maintenance.lastServiced,
            cutoff: cutoff
        )
        return vehicle
    }
}
