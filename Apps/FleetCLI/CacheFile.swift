import Foundation
import RequestKit
import RequestStoreCache
import StoreKitLite

/// fleet's persistent HTTP cache: `http-cache.sqlite` in the data folder, next to the offline copies, shared by
/// every environment (answers are kept by URL) and by every `fleet` process.
///
/// The cache is an optimisation and never a reason to fail: a file that cannot be a cache (corrupt, foreign, made
/// by a newer fleet, in a folder that cannot be created) leaves the run without a cache, after a one-line warning
/// on standard error that says how to start afresh.
struct CacheFile: Sendable {
    /// How large the file may grow: 32 MiB in 2,000 answers, none larger than 4 MiB (a larger answer is passed on
    /// and not kept). A run is short, so only the last 4 MiB read are also kept in memory.
    static let limits = StoreCacheStore.Limits(
        maximumBytes: 32 << 20,
        maximumEntries: 2_000,
        maximumBodySize: 4 << 20,
        memoryBytes: 4 << 20
    )

    /// Where the file is.
    let url: URL
    /// The cache over the file, or `nil` when the file cannot be used.
    let cache: HTTPCache?

    /// Opens (or creates) the cache at `url`; on failure, warns on `context`'s standard error and goes without.
    static func open(at url: URL, context: CommandContext) async -> CacheFile {
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            return without(url, "its folder cannot be created", context: context)
        }
        do {
            let store = try await StoreCacheStore.open(path: url.path, limits: limits)
            return CacheFile(url: url, cache: HTTPCache(store: store))
        } catch {
            return without(url, error.code.description, context: context)
        }
    }

    private static func without(_ url: URL, _ reason: String, context: CommandContext) -> CacheFile {
        context.output.line(
            "warning: fleet's HTTP cache \(url.path) cannot be used (\(reason)); going on without it. "
                + "Remove the file to start a new cache.",
            to: .standardError
        )
        return CacheFile(url: url, cache: nil)
    }
}
