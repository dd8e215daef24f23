public import Foundation
import HTTPTypes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension RequestClient {
    /// Downloads `path` into the file at `destination`, streaming it to disk.
    ///
    /// The body is written to `<destination>.partial` and moved into place only when complete (replacing an
    /// existing file), so a failed or cancelled download never leaves a partial file at the destination. With
    /// `resume`, a partial file left by an earlier attempt is continued with `Range` and `If-Range` (the validator
    /// the server sent first); a server that answers `200` instead of `206` restarts it from the beginning.
    ///
    /// When a download fails midway and the server gave a validator (`ETag`, else `Last-Modified`), the partial
    /// file is kept with the validator beside it (`<destination>.partial-validator`), even without `resume`, so a
    /// later call with `resume: true` continues it. Without a validator, a failure without `resume` deletes the
    /// partial file.
    ///
    /// - Parameters:
    ///   - path: The resource's path, resolved against the current environment.
    ///   - parameters: Query parameters.
    ///   - destination: The file to create or replace once the download is complete.
    ///   - resume: Whether to continue a partial file left by an earlier attempt.
    ///   - progress: called for every chunk written, with the chunk size, the bytes on disk and the size
    ///     expected.
    public func download(
        _ path: String,
        parameters: RequestParameters = [:],
        to destination: URL,
        resume: Bool = false,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(RequestKitError) -> DownloadResult {
        var descriptor = RequestDescriptor(method: .get, path: path)
        descriptor.query = parameters.formFields
        // The bytes as the server keeps them: a range of a compressed answer would name other bytes than a range
        // of the file. A server that compresses anyway is decoded as usual.
        descriptor.headerFields[.acceptEncoding] = "identity"
        let partial = URL(fileURLWithPath: destination.path + ".partial")
        let validatorFile = URL(fileURLWithPath: destination.path + ".partial-validator")
        let existing = resume ? Self.fileSize(partial) : nil
        if let existing, existing > 0 {
            descriptor.headerFields[.range] = "bytes=\(existing)-"
            if let validator = try? String(contentsOf: validatorFile, encoding: .utf8), !validator.isEmpty {
                descriptor.headerFields[.ifRange] = validator
            }
        }
        let validation = descriptor.validation
        do throws(RequestKitError) {
            return try await run(descriptor) { response in
                let status = response.status.code
                guard validation.accepts(status: status) else {
                    throw RequestKitError(
                        .unacceptableStatus,
                        subject: response.url.absoluteString,
                        reason: "the server answered \(status) \(response.status.reasonPhrase)",
                        status: status
                    )
                }
                let resumed = status == 206 && existing != nil
                let validator = response.headerFields[.eTag] ?? response.headerFields[.lastModified]
                try? (validator ?? "").write(to: validatorFile, atomically: true, encoding: .utf8)
                let writer = try DownloadFileWriter(url: partial, append: resumed)
                let startOffset = resumed ? (existing ?? 0) : 0
                let expected = response.expectedLength.map { $0 + startOffset }
                var written = startOffset
                do {
                    for try await chunk in response.body {
                        try writer.write(chunk)
                        written += Int64(chunk.count)
                        progress?(
                            TransferProgress(
                                bytesTransferred: Int64(chunk.count),
                                totalBytesTransferred: written,
                                totalBytesExpected: expected
                            )
                        )
                    }
                    try writer.close()
                } catch {
                    try? writer.close()
                    throw error
                }
                if let expected, expected != written {
                    throw RequestKitError(
                        .transportFailed,
                        subject: response.url.absoluteString,
                        reason: "the body ended after \(written) of \(expected) bytes",
                        status: status
                    )
                }
                try Self.moveIntoPlace(partial, destination)
                try? FileManager.default.removeItem(at: validatorFile)
                return Outcome(
                    value: DownloadResult(
                        fileURL: destination,
                        status: response.status,
                        headerFields: response.headerFields,
                        totalBytes: written,
                        resumed: resumed
                    ),
                    bytesReceived: written - startOffset
                )
            }
        } catch {
            // A partial file is worth keeping when a later `resume: true` can check that the resource is unchanged:
            // the server gave a validator, written next to it. Without one it is removed, unless this attempt was
            // itself a resumption (the caller keeps managing that file).
            let validator = try? String(contentsOf: validatorFile, encoding: .utf8)
            if !resume, validator?.isEmpty ?? true {
                try? FileManager.default.removeItem(at: partial)
                try? FileManager.default.removeItem(at: validatorFile)
            }
            throw error
        }
    }

    /// Downloads with progress delivered as an `AsyncSequence`: iterate ``Download/progress`` and await
    /// ``Download/result()``.
    public func startDownload(
        _ path: String,
        parameters: RequestParameters = [:],
        to destination: URL,
        resume: Bool = false
    ) -> Download {
        let (stream, continuation) = AsyncStream.makeStream(
            of: TransferProgress.self,
            bufferingPolicy: .bufferingNewest(64)
        )
        let task = Task { () async throws -> DownloadResult in
            defer { continuation.finish() }
            return try await download(
                path,
                parameters: parameters,
                to: destination,
                resume: resume,
                progress: { continuation.yield($0) }
            )
        }
        return Download(progress: stream, task: task)
    }

    static func fileSize(_ url: URL) -> Int64? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
        return (attributes[.size] as? NSNumber)?.int64Value
    }

    static func moveIntoPlace(_ source: URL, _ destination: URL) throws(RequestKitError) {
        // rename(2) replaces an existing destination atomically: readers see the old file or the new one.
        guard rename(source.path, destination.path) == 0 else {
            throw RequestKitError(
                .fileSystem,
                subject: destination.path,
                reason: "the download cannot be moved into place (errno \(errno))"
            )
        }
    }
}

/// A download in progress: a stream of progress values and the result.
public struct Download: Sendable {
    /// Progress values as chunks are written; ends when the download ends.
    public let progress: AsyncStream<TransferProgress>
    private let task: Task<DownloadResult, any Error>

    init(progress: AsyncStream<TransferProgress>, task: Task<DownloadResult, any Error>) {
        self.progress = progress
        self.task = task
    }

    /// Waits for the download to finish.
    public func result() async throws(RequestKitError) -> DownloadResult {
        do {
            return try await task.value
        } catch {
            throw RequestKitError.wrapping(error, operation: "download", url: nil)
        }
    }

    /// Cancels the download; ``result()`` then fails with ``RequestKitError/Code/cancelled``.
    public func cancel() {
        task.cancel()
    }
}
