import Foundation
import Testing

@testable import FleetCLI

/// The note that says where an `--offline` read came from and how old it is.
struct FleetOfflineSourceTests {
    static let ages: [(seconds: Double, text: String)] = [
        (0.4, "just now"), (1, "1 second ago"), (59, "59 seconds ago"), (60, "1 minute ago"),
        (3_599, "59 minutes ago"), (3_600, "1 hour ago"), (7_200, "2 hours ago"), (86_400, "1 day ago"),
        (40 * 86_400, "40 days ago"), (-5, "just now"),
    ]

    @Test(arguments: ages)
    func agesReadAsAPersonSaysThem(seconds: Double, text: String) {
        let now = Date(timeIntervalSince1970: 1_714_555_800)
        #expect(OfflineSource.age(of: now.addingTimeInterval(-seconds), now: now) == text)
    }

    @Test func notesNameTheSourceTheTimeInUTCAndTheAge() {
        let now = Date(timeIntervalSince1970: 1_714_555_800.75)  // 2024-05-01T09:30:00.750Z
        let synced = now.addingTimeInterval(-3 * 3_600)
        #expect(
            OfflineSource.copy(environment: "staging", syncedAt: synced).note(now: now)
                == "note: from the offline copy of \"staging\", synced at 2024-05-01T06:30:00Z (3 hours ago)"
        )
        #expect(
            OfflineSource.cache(environment: "staging", answeredAt: now.addingTimeInterval(-90), copySyncedAt: synced)
                .note(now: now)
                == "note: from fleet's HTTP cache, fleetd's answer at 2024-05-01T09:28:30Z (1 minute ago); the offline "
                + "copy of \"staging\" (synced at 2024-05-01T06:30:00Z (3 hours ago)) does not hold it"
        )
    }
}
