/// What an error needs to name a key, captured without building any text.
struct KeyDescription: Sendable {
    let serviceType: any Any.Type
    let name: String?
    let isTypedKey: Bool

    init(serviceType: any Any.Type, name: String?, isTypedKey: Bool) {
        self.serviceType = serviceType
        self.name = name
        self.isTypedKey = isTypedKey
    }

    var text: String {
        if serviceType == NamedType.self { return "type named \"\(name ?? "")\"" }
        let type = String(describing: serviceType)
        guard let name else { return type }
        return isTypedKey ? "\(type) (key: \"\(name)\")" : "\(type) (name: \"\(name)\")"
    }
}
