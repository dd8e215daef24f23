/// What an error needs to name a key, captured without building any text.
struct KeyDescription: Sendable {
    let serviceType: any Any.Type
    let name: String?
    let isTypedKey: Bool
    /// The parameter types of a parameterised registration (empty for one without parameters).
    let parameterTypes: [any Any.Type]

    init(serviceType: any Any.Type, name: String?, isTypedKey: Bool, parameterTypes: [any Any.Type] = []) {
        self.serviceType = serviceType
        self.name = name
        self.isTypedKey = isTypedKey
        self.parameterTypes = parameterTypes
    }

    /// The key without its parameters: `Database`, `Database (name: "replica")`, `Database (key: "primary")`.
    var baseText: String {
        if serviceType == NamedType.self { return "type named \"\(name ?? "")\"" }
        let type = String(describing: serviceType)
        guard let name else { return type }
        return isTypedKey ? "\(type) (key: \"\(name)\")" : "\(type) (name: \"\(name)\")"
    }

    /// The parameter list, such as `(Int, String)`; empty without parameters.
    var parametersText: String {
        parameterTypes.isEmpty ? "" : "(" + parameterTypes.map { String(describing: $0) }.joined(separator: ", ") + ")"
    }

    /// The key as errors name it; a parameterised one ends with its parameter types: `Report (params: Int)`.
    var text: String {
        parameterTypes.isEmpty
            ? baseText
            : "\(baseText) (params: \(parameterTypes.map { String(describing: $0) }.joined(separator: ", ")))"
    }
}
