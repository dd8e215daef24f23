#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutex over `pthread_mutex_t`, paired with a condition variable.
///
/// LocatorKit uses pthreads rather than `Synchronization.Mutex` because ThreadSanitizer on Linux does not see
/// `Mutex`'s futex and reports correct code as racy; pthread calls are intercepted and understood.
final class PThreadLock: @unchecked Sendable {
    // @unchecked Sendable: the mutex and condition live in heap memory that never moves and are only used
    // through the pthread functions, which are thread-safe by contract.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always)
    func lock() {
        pthread_mutex_lock(mutex)
    }

    @inline(__always)
    func unlock() {
        pthread_mutex_unlock(mutex)
    }

    /// Waits on the condition; the caller must hold the lock.
    func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// Wakes every waiter; the caller should hold the lock.
    func broadcast() {
        pthread_cond_broadcast(condition)
    }

    @inline(__always)
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
