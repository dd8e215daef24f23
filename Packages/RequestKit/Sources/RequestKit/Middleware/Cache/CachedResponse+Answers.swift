import Foundation
import HTTPTypes
import Synchronization

extension CachedResponse {
    /// The response for a hit at `age` whole seconds with `ttl` seconds of freshness left (negative for a stale
    /// answer, RFC 9211 section 2.6), `revalidating` within `stale-while-revalidate`: the stored answer with `Age`
    /// and `Cache-Status` added. Hits within the same second share one response.
    func hitResponse(age: Int, ttl: Int, revalidating: Bool) -> ClientResponse {
        // Looked up before anything is built: a closure that builds the response would capture, and so copy, the
        // whole stored answer on every hit.
        // A `switch` hands the kept response on; an `if let` copied it once more and then destroyed the copy.
        switch answers.response(age: age, ttl: ttl, revalidating: revalidating) {
        case .some(let known): return known
        case .none: break
        }
        var fields = headerFields
        fields.reserveCapacity(fields.count + 2)
        fields[.age] = String(age)
        var report = "RequestKit; hit; ttl=" + String(ttl)
        if revalidating { report += "; detail=stale-while-revalidate" }
        fields.append(HTTPField(name: CacheRules.cacheStatus, value: report))
        let response = ClientResponse(
            status: HTTPResponse.Status(code: status),
            headerFields: fields,
            body: ClientResponse.Body(data: body),
            url: url
        )
        answers.keep(response, age: age, ttl: ttl, revalidating: revalidating)
        return response
    }

    /// Builds, as the answer is stored, the response for the fresh hits that come within its first second: a
    /// first hit then costs no more than any other.
    func prepareFirstHits() {
        // A hit comes after the answer arrived: its age is the initial age and a little more.
        let age = head.initialAge + 0.001
        guard age < head.lifetime else { return }
        _ = hitResponse(age: Int(age), ttl: Int((head.lifetime - age).rounded(.down)), revalidating: false)
    }

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

        /// The response last kept for a hit with `age`, `ttl` and `revalidating`, if it had the same.
        func response(age: Int, ttl: Int, revalidating: Bool) -> ClientResponse? {
            // Compared and read where it is kept: binding the last hit to a name would copy its response twice.
            last.withLock { last -> ClientResponse? in
                guard last?.age == age, last?.ttl == ttl, last?.revalidating == revalidating else { return nil }
                return last?.response
            }
        }

        /// Keeps `response` for the next hits with `age`, `ttl` and `revalidating`.
        func keep(_ response: ClientResponse, age: Int, ttl: Int, revalidating: Bool) {
            last.withLock { $0 = Hit(age: age, ttl: ttl, revalidating: revalidating, response: response) }
        }
    }
}
