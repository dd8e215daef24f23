import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A readers-writer lock for the registration table: readers cost two atomic operations and never block each
/// other; writers (registration, removal) are serialised by a pthread mutex and wait for readers in flight.
///
/// Readers hold it only for a table lookup, never while a factory runs, so writers wait microseconds at most.
/// It is built from sequentially consistent atomics (a Dekker-style handshake: a reader announces itself, then
/// checks for a writer; a writer announces itself, then checks for readers), which ThreadSanitizer models.
final class ReadWriteLock: Sendable {
    private let readers = Atomic<Int>(0)
    private let writing = Atomic<Bool>(false)
    private let writers = PThreadLock()

    @inline(__always)
    func lockRead() {
        while true {
            readers.add(1, ordering: .sequentiallyConsistent)
            if !writing.load(ordering: .sequentiallyConsistent) { return }
            readers.subtract(1, ordering: .sequentiallyConsistent)
            while writing.load(ordering: .relaxed) {
                sched_yield()
            }
        }
    }

    @inline(__always)
    func unlockRead() {
        readers.subtract(1, ordering: .releasing)
    }

    func lockWrite() {
        writers.lock()
        writing.store(true, ordering: .sequentiallyConsistent)
        while readers.load(ordering: .sequentiallyConsistent) != 0 {
            sched_yield()
        }
    }

    func unlockWrite() {
        writing.store(false, ordering: .releasing)
        writers.unlock()
    }

    @inline(__always)
    func withReadLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lockRead()
        defer { unlockRead() }
        return try body()
    }

    func withWriteLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lockWrite()
        defer { unlockWrite() }
        return try body()
    }
}
