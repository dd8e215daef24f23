import RequestStoreCache
import StoreKitLite

/// fleet's persistent HTTP cache: `http-cache.sqlite` in the data folder, next to the offline copies, shared by
/// every environment (answers are kept by URL) and by every `fleet` process. ``FleetServices`` opens it through
/// its request client module.
///
/// The cache is an optimisation and never a reason to fail: a file that cannot be a cache (corrupt, foreign, made
/// by a newer fleet, in a folder that cannot be created) leaves the run without a cache, after a one-line warning
/// on standard error that says how to start afresh.
enum CacheFile {
    /// How large the file may grow: 32 MiB in 2,000 answers, none larger than 4 MiB (a larger answer is passed on
    /// and not kept). A run is short, so only the last 4 MiB read are also kept in memory.
    static let limits = StoreCacheStore.Limits(
        maximumBytes: 32 << 20,
        maximumEntries: 2_000,
        maximumBodySize: 4 << 20,
        memoryBytes: 4 << 20
    )

    /// Warns on `context`'s standard error that the file at `path` cannot be a cache, and how to start afresh.
    static func warn(path: String, error: StoreError, context: CommandContext) {
        context.output.line(
            "warning: fleet's HTTP cache \(path) cannot be used (\(error.code.description)); going on without it. "
                + "Remove the file to start a new cache.",
            to: .standardError
        )
    }
}
