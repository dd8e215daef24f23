/// A mutable iterator state shared with a `@Sendable` unfolding closure.
///
/// `@unchecked Sendable` is safe here because an `AsyncThrowingStream(unfolding:)` calls its closure only from the
/// stream's single consumer, one call at a time: `state` is never touched by two calls at once.
final class SerialIterator<State>: @unchecked Sendable {
    var state: State

    init(_ state: State) {
        self.state = state
    }
}
