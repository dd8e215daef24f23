import Dispatch
import Foundation
import HTTPTypes
import ModelKit
import RequestKit
import RequestKitAsyncHTTPClient
import RequestKitTesting

/// A serial queue that tests recognise with `DispatchQueue.getSpecific`.
struct LabelledQueue: Sendable {
    static let key = DispatchSpecificKey<String>()
    let queue: DispatchQueue
    let label: String

    init(_ label: String) {
        self.label = label
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: Self.key, value: label)
    }

    /// The label of the queue the caller runs on, when it is one of these.
    static var current: String? { DispatchQueue.getSpecific(key: key) }
}

/// Runs a callback call from synchronous code and returns what its completion got, and on which queue.
func outcome<Value: Sendable, Failure: Error>(
    _ call: @escaping (@escaping @Sendable (Result<Value, Failure>) -> Void) -> Void
) async -> (result: Result<Value, Failure>, queue: String?) {
    await withCheckedContinuation { continuation in
        call { result in continuation.resume(returning: (result, LabelledQueue.current)) }
    }
}
