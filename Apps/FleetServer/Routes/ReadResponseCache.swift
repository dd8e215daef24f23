import FleetModels
import Foundation
import HTTPTypes
import Hummingbird
import ModelKit
import NIOCore
import Synchronization

/// The encoded answers of recent reads (one vehicle, one page of a list) kept in memory and sent again without
/// touching the store, for as long as they are exact:
///
/// - every entry carries the ``FleetService/writeGeneration`` taken *before* its read began, and counts only while
///   the generation is unchanged, so any finished write (in either API version) retires every entry at once. A
///   read racing a write can only store an entry of the generation the write is about to end;
/// - every entry carries the first moment a vehicle in it may change its derived `due` state as time passes
///   (``FleetService/dueStateChange(of:)``), and is not used from then on;
/// - lists filtered on `due` are never kept: a vehicle outside the page may cross into it as time passes.
///
/// This is exact while this process is the only writer of its database, which holds for the embedded SQLite store
/// (the daemon locks it, see ``FleetDaemon/run()``). With PostgreSQL shared by several daemons, the other daemons'
/// writes retire entries when the store's change feed delivers them (``FleetService/noteWriteElsewhere()``): an
/// answer is served at most until the first read of the change log after another daemon's commit, and not at all
/// while the feed is disconnected or catching up (``FleetService/followsWritesElsewhere``). Memory is bounded by a byte budget (bodies and headers);
/// when a new entry does not fit, entries of older generations and expired ones go first, then everything.
public final class ReadResponseCache: Sendable {
    /// What a cached answer is the answer to.
    enum Key: Hashable, Sendable {
        case vehicle(version: Int, id: ModelID<Vehicle>)
        case list(version: Int, make: String?, modelYear: Int?, after: String?, limit: Int?)
    }

    /// The state a read started from: its answer may be stored under this generation only.
    struct Ticket: Sendable {
        fileprivate let generation: UInt64
    }

    private struct Entry {
        let generation: UInt64
        let expires: Date
        let headers: HTTPFields
        let body: ByteBuffer
        let cost: Int
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var bytes = 0
        var hits = 0
        var misses = 0
    }

    private let service: FleetService
    private let state = Mutex(State())
    /// The byte budget.
    public let capacityBytes: Int

    /// A cache for `service`'s reads within `capacityBytes` (at least one page should fit: 64 KiB or more is
    /// sensible).
    public init(service: FleetService, capacityBytes: Int) {
        self.service = service
        self.capacityBytes = capacityBytes
    }

    /// Hits and misses so far, and what is stored now.
    public var statistics: (hits: Int, misses: Int, entries: Int, bytes: Int) {
        state.withLock { ($0.hits, $0.misses, $0.entries.count, $0.bytes) }
    }

    /// The stored answer for `key` if it is still exact, as a fresh `200 OK` response.
    func response(for key: Key) -> Response? {
        guard service.followsWritesElsewhere else { return nil }
        let generation = service.writeGeneration
        let now = service.currentDate()
        let hit: Entry? = state.withLock { state in
            guard let entry = state.entries[key], entry.generation == generation, now < entry.expires else {
                state.misses += 1
                return nil
            }
            state.hits += 1
            return entry
        }
        guard let hit else { return nil }
        return Response(status: .ok, headers: hit.headers, body: ResponseBody(byteBuffer: hit.body))
    }

    /// Takes the generation before a read.
    func ticket() -> Ticket {
        Ticket(generation: service.writeGeneration)
    }

    /// Keeps `body` as the answer to `key`, read from the state of `ticket`, until `expires` (`nil`: until the next
    /// write). Nothing is kept when a write finished since the ticket was taken, or when it cannot fit.
    func store(_ key: Key, headers: HTTPFields, body: ByteBuffer, ticket: Ticket, expires: Date?) {
        // The buffer's capacity, not its length, is what it holds on to (buffers grow in powers of two).
        let cost =
            max(body.capacity, body.readableBytes)
            + headers.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count } + 64
        guard cost <= capacityBytes, service.followsWritesElsewhere else { return }
        let entry = Entry(
            generation: ticket.generation,
            expires: expires ?? .distantFuture,
            headers: headers,
            body: body,
            cost: cost
        )
        let now = service.currentDate()
        state.withLock { state in
            // A write may still finish between this check and the insert; the entry then carries a generation that
            // is over, and `response(for:)` never serves it.
            guard service.writeGeneration == ticket.generation, now < entry.expires else { return }
            if let old = state.entries.removeValue(forKey: key) {
                state.bytes -= old.cost
            }
            if state.bytes + cost > capacityBytes {
                state.entries = state.entries.filter {
                    $0.value.generation == ticket.generation && now < $0.value.expires
                }
                state.bytes = state.entries.values.reduce(0) { $0 + $1.cost }
                if state.bytes + cost > capacityBytes {
                    state.entries.removeAll(keepingCapacity: true)
                    state.bytes = 0
                }
            }
            state.entries[key] = entry
            state.bytes += cost
        }
    }
}

extension ReadResponseCache {
    /// The cached answer for `key`, or `read`'s, which is kept. `read` returns the response's headers, its body,
    /// and until when the body is exact as far as time goes (`nil`: until the next write). With no cache, `read` is
    /// simply called.
    static func serve(
        _ cache: ReadResponseCache?,
        _ key: @autoclosure () -> Key,
        read: () async throws -> (headers: HTTPFields, body: ByteBuffer, expires: Date?)
    ) async throws -> Response {
        guard let cache else {
            let answer = try await read()
            return Response(status: .ok, headers: answer.headers, body: ResponseBody(byteBuffer: answer.body))
        }
        let key = key()
        if let response = cache.response(for: key) { return response }
        let ticket = cache.ticket()
        let answer = try await read()
        cache.store(key, headers: answer.headers, body: answer.body, ticket: ticket, expires: answer.expires)
        return Response(status: .ok, headers: answer.headers, body: ResponseBody(byteBuffer: answer.body))
    }
}
