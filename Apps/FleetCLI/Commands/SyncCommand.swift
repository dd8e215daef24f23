public import ArgumentParser
import FleetClient
import Foundation
import RequestKit

/// `fleet sync`.
public struct SyncCommand: FleetRunnable {
    public static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Pull every vehicle into the offline copy (replacing it), for --offline reads.",
        discussion: """
            Always reads the v2 API, page by page; the copy is replaced in one commit.

            \(GlobalOptions.helpPointer)
            """
    )

    @OptionGroup(visibility: .hidden) public var global: GlobalOptions

    @Option(name: .customLong("page-size"), help: "Vehicles per page (1-500).")
    public var pageSize = 200

    public init() {}

    var wantsJSON: Bool { global.json }

    public func validate() throws {
        guard (1...500).contains(pageSize) else { throw ValidationError("--page-size must be between 1 and 500.") }
    }

    func execute(_ context: CommandContext) async throws {
        try await withServices(global, context) { services in
            let copy = try await services.offlineCopy()
            let count = try await services.fleetClient().sync(into: copy, pageSize: pageSize)
            if global.json {
                context.output.line(
                    #"{"environment": "\#(services.environment.name)", "vehicles": \#(count), "file": "\#(copy.fileURL.path)"}"#
                )
            } else {
                context.output.line(
                    "synced \(count) vehicle\(count == 1 ? "" : "s") from \"\(services.environment.name)\" into \(copy.fileURL.path)"
                )
            }
        }
    }
}
