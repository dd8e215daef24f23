import Foundation
import RequestStoreCache
import StoreKitLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// fleet's persistent HTTP cache: `http-cache.sqlite` in the data folder, next to the offline copies, shared by
/// every environment (answers are kept by URL) and by every `fleet` process. ``FleetServices`` opens it through
/// its request client module.
///
/// The cache is an optimisation and never a reason to fail: a file that cannot be a cache (corrupt, foreign, made
/// by a newer fleet, read-only, in a data folder that is a file or read-only) leaves the run without a cache, after a
/// one-line warning on standard error that says what to do.
enum CacheFile {
    /// How large the file may grow: 32 MiB in 2,000 answers, none larger than 4 MiB (a larger answer is passed on
    /// and not kept). A run is short, so only the last 4 MiB read are also kept in memory.
    static let limits = StoreKitLiteCacheStore.Limits(
        maximumBytes: 32 << 20,
        maximumEntries: 2_000,
        maximumBodySize: 4 << 20,
        memoryBytes: 4 << 20
    )

    /// Warns on `context`'s standard error that the file at `path` cannot be a cache, and what to do: free the data
    /// folder when it is a file or read-only, make the file writable when it is read-only, else start afresh.
    static func warn(path: String, error: StoreError, context: CommandContext) {
        let message: String
        if let problem = WritableFolder.data(context.environment).problem() {
            message = "cannot be used: \(problem). Going on without a cache."
        } else if FileManager.default.fileExists(atPath: path), access(path, W_OK) != 0 {
            message =
                "cannot be used: the file is read-only to you; make it writable (chmod u+w \(path)), or remove "
                + "it. Going on without a cache."
        } else {
            message =
                "cannot be used (\(error)); going on without it. Remove the file to start a new cache."
        }
        context.output.line("warning: fleet's HTTP cache \(path) \(message)", to: .standardError)
    }
}
