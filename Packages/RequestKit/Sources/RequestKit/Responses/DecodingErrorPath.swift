/// Renders a `DecodingError` as `vehicles[3].modelYear: expected Int, found string`.
enum DecodingErrorPath {
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error).prefix(200).description }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(type), \(context.debugDescription.prefix(120))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(type), found null"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): missing"
        case .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription.prefix(120))"
        @unknown default:
            return String(describing: error).prefix(200).description
        }
    }

    static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text.isEmpty ? "(root)" : text
    }
}
