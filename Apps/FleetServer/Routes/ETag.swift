import FleetModels
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Revisions as strong entity tags: revision 3 is `"3"`.
enum ETag {
    enum Condition {
        case revision(Int)
        case any
    }

    static func make(_ revision: Int) -> String { "\"\(revision)\"" }

    /// A strong entity tag for bytes without a revision (a page of a list): their FNV-1a 64-bit digest, in hex.
    static func digest(of bytes: ByteBuffer) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes.readableBytesView {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// `304 Not Modified` when the request's `If-None-Match` names the answer's entity tag (or is `*`), with the
    /// tag and the caching fields but no body (RFC 9110 §13.1.2, §15.4.5); otherwise the answer itself.
    static func answer(_ request: Request, with response: Response) -> Response {
        guard let condition = request.headers[.ifNoneMatch].map(conditionValue), let tag = response.headers[.eTag],
            matches(condition, tag)
        else { return response }
        var headers = HTTPFields()
        headers[.eTag] = tag
        if let cacheControl = response.headers[.cacheControl] { headers[.cacheControl] = cacheControl }
        return Response(status: .notModified, headers: headers)
    }

    /// A conditional field's value as the client meant it. An entity tag starts with `"` (or `W/"`), so a value that
    /// starts with `%22` (or `W/%22`) was percent-encoded on its way, as OpenAPI runtimes encode header parameters:
    /// it is decoded. Any other value stays as it is, and is refused later if malformed.
    static func conditionValue(_ value: String) -> String {
        let trimmed = value.drop { $0 == " " || $0 == "\t" }
        guard trimmed.hasPrefix("%22") || trimmed.hasPrefix("W/%22") || trimmed.hasPrefix("W%2F%22"),
            let decoded = value.removingPercentEncoding
        else { return value }
        return decoded
    }

    /// Whether an `If-None-Match` list names `tag`, by the weak comparison the field uses.
    static func matches(_ condition: String, _ tag: String) -> Bool {
        let opaque = tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
        for candidate in condition.split(separator: ",") {
            let trimmed = candidate.trimmingCharacters(in: .whitespaces)
            if trimmed == "*" { return true }
            let candidateOpaque = trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : Substring(trimmed)
            if candidateOpaque == opaque { return true }
        }
        return false
    }

    /// The `If-Match` condition, if the header is there; a malformed one is a 400.
    static func ifMatch(_ request: Request) throws -> Condition? {
        guard let value = request.headers[.ifMatch].map(conditionValue)?.trimmingCharacters(in: .whitespaces) else {
            return nil
        }
        if value == "*" { return .any }
        guard let revision = revision(inTag: value) else {
            throw HTTPProblem(
                400,
                type: ProblemType.badQuery,
                title: "Bad If-Match",
                detail: "If-Match must be a revision as a strong entity tag, such as \"3\"",
                errors: [Problem.FieldError(path: "header.If-Match", message: "must look like \"3\"")]
            )
        }
        return .revision(revision)
    }

    /// The revision a strong entity tag names: `"3"`, digits without a sign or a leading zero, at most 18 of them
    /// (another spelling such as `"03"` is another tag, never revision 3).
    static func revision(inTag tag: String) -> Int? {
        let bytes = Array(tag.utf8)
        guard bytes.count >= 3, bytes.count <= 20, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\""),
            bytes[1] != UInt8(ascii: "0")
        else { return nil }
        var revision = 0
        for byte in bytes[1..<(bytes.count - 1)] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            revision = revision * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return revision
    }
}
