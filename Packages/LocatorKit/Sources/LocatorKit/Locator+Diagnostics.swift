extension Locator {
    /// Lists the registrations of this locator and its ancestors with their lifetimes and state, one per line.
    ///
    /// ```
    /// Locator "app" (frozen)
    ///   Clock: lazy, created
    ///   SystemClock: forwarded to Clock
    ///   Report: transient with parameters (Int)
    ///   any Database (name: "replica"): scoped(session), not created
    ///   parent Locator "root"
    ///     Logger: instance, created
    /// ```
    public func dump() -> String {
        var lines: [String] = []
        var locator: Locator? = self
        var depth = 0
        while let current = locator {
            let indent = String(repeating: "  ", count: depth)
            let label = current.name.map { "\"\($0)\"" } ?? "(unnamed)"
            lines.append(
                indent + (depth == 0 ? "" : "parent ") + "Locator \(label)" + (current.isFrozen ? " (frozen)" : "")
            )
            for entry in current.snapshot() {
                var line = "\(indent)  \(entry.keyDescription.baseText): \(entry.lifetimeDescription)"
                if entry.isParameterised { line += " with parameters \(entry.keyDescription.parametersText)" }
                if entry.isAsync { line += ", async" }
                let state = entry.stateDescription
                if !state.isEmpty { line += ", \(state)" }
                lines.append(line)
            }
            locator = current.parent
            depth += 1
        }
        return lines.joined(separator: "\n")
    }

    /// Tries every registration of this locator and its ancestors, awaiting `async` factories, and reports every
    /// failure at once.
    ///
    /// Shared lifetimes are created (as they would be on first use); transient and graph factories run once and
    /// their instances are dropped; parameterised factories run only when their parameter is optional.
    ///
    /// - Throws: ``LocatorError/Code/validationFailed`` with all ``LocatorError/failures``.
    public func validate() async throws(LocatorError) {
        var failures: [LocatorError] = []
        var seen = Set<RegistrationKey>()
        var locator: Locator? = self
        while let current = locator {
            for entry in current.snapshot() where seen.insert(entry.key).inserted {
                if entry.isParameterised, !entry.acceptsNoParams { continue }
                do {
                    _ = try await entry.resolveAnyAsync(requester: self, owner: current, node: nil)
                } catch {
                    failures.append(error)
                }
            }
            locator = current.parent
        }
        guard failures.isEmpty else {
            throw LocatorError(.validationFailed, detail: LocatorError.Detail(failures: failures))
        }
    }

    /// Resolves a service by the name of its type, for code that cannot name the type (the stand-in for the
    /// seeds' Objective-C access).
    ///
    /// `typeName` matches `String(describing:)` or `String(reflecting:)` of the registered service type, such as
    /// `"any Clock"`, `"SystemClock"` or `"MyApp.SystemClock"`. Lookup scans the registrations, so keep it off hot
    /// paths.
    ///
    /// - Throws: ``LocatorError/Code/notRegistered`` when nothing matches.
    public func resolve(typeNamed typeName: String, name: String? = nil) throws(LocatorError) -> any Sendable {
        var locator: Locator? = self
        while let current = locator {
            for entry in current.snapshot().reversed()
            where entry.key.name == name && !entry.key.isTypedKey && entry.acceptsNoParams {
                let type = entry.serviceType
                if String(describing: type) == typeName || String(reflecting: type) == typeName {
                    return try entry.resolveAny(requester: self, owner: current, node: nil)
                }
            }
            locator = current.parent
        }
        throw .notRegistered(
            KeyDescription(serviceType: NamedType.self, name: typeName, isTypedKey: false),
            searched: self
        )
    }

    /// Registrations that resemble `key`: the same service type under another name first, then similar names.
    func nearCandidates(for key: KeyDescription) -> [String] {
        let wantedID = ObjectIdentifier(key.serviceType)
        let wantedName = (key.serviceType == NamedType.self ? key.name ?? "" : String(describing: key.serviceType))
            .lowercased()
        var scored: [(score: Int, text: String)] = []
        var locator: Locator? = self
        while let current = locator {
            for entry in current.snapshot() {
                let text = entry.keyDescription.text
                if entry.serviceID == wantedID {
                    scored.append((0, text))
                    continue
                }
                let name = String(describing: entry.serviceType).lowercased()
                let distance = NearestNames.distance(name, wantedName, limit: 3)
                if distance <= 3 || (name.count > 3 && wantedName.contains(name))
                    || wantedName.count > 3
                        && name.contains(wantedName)
                {
                    scored.append((1 + distance, text))
                }
            }
            locator = current.parent
        }
        var seen = Set<String>()
        return scored.sorted { $0.score < $1.score }.map(\.text).filter { seen.insert($0).inserted }
    }
}

/// The placeholder service type of a string-keyed miss.
enum NamedType {}
