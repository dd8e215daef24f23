import Configuration

/// Reads a module's settings under one key prefix, remembering what is missing or mistyped instead of stopping at
/// the first problem.
struct SettingsReader {
    let config: ConfigReader
    let prefix: String
    let label: String
    private(set) var problems: [String] = []

    init(_ config: ConfigReader, prefix: String, label: String) {
        self.config = config
        self.prefix = prefix
        self.label = label
    }

    func key(_ name: String) -> String { prefix.isEmpty ? name : prefix + "." + name }

    /// A string that must be there; `""` (and a problem) when it is not.
    mutating func requiredString(_ name: String, isSecret: Bool = false) -> String {
        if let value = config.string(forKey: ConfigKey(key(name)), isSecret: isSecret), !value.isEmpty { return value }
        problems.append("\(label): \(key(name)) is missing")
        return ""
    }

    func string(_ name: String) -> String? {
        config.string(forKey: ConfigKey(key(name)))
    }

    /// An integer, if one is given; a value that is not an integer is a problem.
    mutating func int(_ name: String) -> Int? {
        if let value = config.int(forKey: ConfigKey(key(name))) { return value }
        if let text = string(name) { problems.append("\(label): \(key(name)) must be an integer, not \"\(text)\"") }
        return nil
    }

    /// A number of seconds, if one is given (`2.5` allowed); a value that is not a number is a problem.
    mutating func seconds(_ name: String) -> Duration? {
        if let value = config.double(forKey: ConfigKey(key(name))) { return .milliseconds(Int64(value * 1000)) }
        if let value = config.int(forKey: ConfigKey(key(name))) { return .seconds(value) }
        if let text = string(name) {
            problems.append("\(label): \(key(name)) must be a number of seconds, not \"\(text)\"")
        }
        return nil
    }

    /// One of `choices` by name, if one is given; another value is a problem that lists the choices.
    mutating func choice<Value>(_ name: String, _ choices: KeyValuePairs<String, Value>) -> Value? {
        guard let text = string(name) else { return nil }
        if let match = choices.first(where: { $0.key == text.lowercased() }) { return match.value }
        let names = choices.map(\.key).joined(separator: ", ")
        problems.append("\(label): \(key(name)) must be one of \(names), not \"\(text)\"")
        return nil
    }
}
