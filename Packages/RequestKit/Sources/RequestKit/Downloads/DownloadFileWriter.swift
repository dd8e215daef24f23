import Foundation

/// Writes a download's chunks to its partial file.
final class DownloadFileWriter {
    private let handle: FileHandle
    private let url: URL

    init(url: URL, append: Bool) throws(RequestKitError) {
        self.url = url
        do {
            if !append || !FileManager.default.fileExists(atPath: url.path) {
                guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                    throw RequestKitError(.fileSystem, subject: url.path, reason: "the file cannot be created")
                }
            }
            handle = try FileHandle(forWritingTo: url)
            if append { try handle.seekToEnd() }
        } catch let error as RequestKitError {
            throw error
        } catch {
            throw RequestKitError(
                .fileSystem,
                subject: url.path,
                reason: "the file cannot be opened",
                underlying: error
            )
        }
    }

    func write(_ chunk: Data) throws(RequestKitError) {
        do {
            try handle.write(contentsOf: chunk)
        } catch {
            throw RequestKitError(
                .fileSystem,
                subject: url.path,
                reason: "the file cannot be written",
                underlying: error
            )
        }
    }

    func close() throws(RequestKitError) {
        do {
            try handle.close()
        } catch {
            throw RequestKitError(
                .fileSystem,
                subject: url.path,
                reason: "the file cannot be closed",
                underlying: error
            )
        }
    }
}
