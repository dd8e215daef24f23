import Foundation
import HTTPTypes
import Synchronization

extension CachedResponse {
    /// The response last given for a fresh hit on a stored answer. Its header fields change only when the age in
    /// whole seconds or the hit's report does, so the hits within one second share one response instead of each
    /// copying the header fields, adding `Age` and `Cache-Status` and wrapping the body.
    ///
    /// Shared by the copies of one stored answer; every change to the answer replaces it with an empty one.
    final class Answers: Sendable {
        struct Hit: Sendable {
            /// The `Age` value, in whole seconds.
            let age: Int
            /// The `ttl` of the report.
            let ttl: Int
            /// Whether the report says `detail=stale-while-revalidate`.
            let revalidating: Bool
            let response: ClientResponse
        }

        private let last = Mutex<Hit?>(nil)

        /// The response for a hit with `age`, `ttl` and `revalidating`: the last one when it had the same, or the
        /// one `make` builds, kept for the next hits.
        func response(
            age: Int,
            ttl: Int,
            revalidating: Bool,
            make: () -> ClientResponse
        ) -> ClientResponse {
            let known = last.withLock { last -> ClientResponse? in
                guard let last, last.age == age, last.ttl == ttl, last.revalidating == revalidating else {
                    return nil
                }
                return last.response
            }
            if let known { return known }
            let response = make()
            last.withLock { $0 = Hit(age: age, ttl: ttl, revalidating: revalidating, response: response) }
            return response
        }
    }
}
