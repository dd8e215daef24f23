import OpenAPIRuntime

/// Why a check failed, in one line.
struct CheckFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }

    /// A response other than the one the check expects: the generated output's case, with the problem's status
    /// and title when the response is a problem document, or the status code when the document names none.
    static func unexpected(_ output: Any, expected: String) -> CheckFailure {
        guard let answer = Mirror(reflecting: output).children.first, let label = answer.label else {
            return CheckFailure("expected \(expected), got \(output)")
        }
        if label == "undocumented", let status = Mirror(reflecting: answer.value).children.first?.value as? Int {
            return CheckFailure("expected \(expected), got undocumented status \(status)")
        }
        if let problem = answer.value as? Components.Responses.Problem,
            case .application_problem_plus_json(let document) = problem.body
        {
            return CheckFailure("expected \(expected), got \(label): \(CheckFailure.describe(document))")
        }
        return CheckFailure("expected \(expected), got \(label)")
    }

    /// A problem document in one line: `400 Bad If-Match: If-Match must be ...`.
    static func describe(_ problem: Components.Schemas.Problem) -> String {
        "\(problem.status) \(problem.title)" + (problem.detail.map { ": \($0)" } ?? "")
    }

    /// The reason a thrown error gives, in one line: the generated client wraps what went wrong in a `ClientError`
    /// whose description holds the whole request and response, so only its cause is kept.
    static func reason(for error: any Error) -> String {
        let cause: any Error
        if let clientError = error as? ClientError {
            cause = clientError.underlyingError
        } else {
            cause = error
        }
        let text: String
        switch cause {
        case let failure as CheckFailure:
            text = failure.description
        case DecodingError.dataCorrupted(let context):
            text = "cannot decode \(path(context)): \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, let context):
            text = "cannot decode \(path(context)): no \(key.stringValue)"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            text = "cannot decode \(path(context)): \(context.debugDescription)"
        default:
            text = "\(type(of: cause)): \(cause)"
        }
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    private static func path(_ context: DecodingError.Context) -> String {
        context.codingPath.isEmpty ? "the body" : context.codingPath.map(\.stringValue).joined(separator: ".")
    }
}
