/// An open-addressing hash table from ``RegistrationKey`` to ``Entry``, in manually managed memory.
///
/// `Dictionary` hashes with SipHash (about 170 instructions per lookup here) and its storage is reference
/// counted on every access; keys are a type identifier and an optional short name, so a multiplicative mix and
/// FNV-1a are enough, and plain pointers avoid the retains. Linear probing, at most half full; removal rebuilds
/// (registrations are rarely removed). The owner must call ``destroy()`` once.
///
/// The table owns one strong reference to each entry, taken and given back by hand (`Unmanaged`), so a lookup
/// can use an entry without retaining it (``unretainedEntry(for:)``) for as long as the table is not changed,
/// which the owner guarantees by holding its read lock (or by being frozen).
///
/// Parameterised entries are also indexed by service type, name and key kind (``ParamsGroup``), so a resolve whose
/// arguments match no signature exactly finds the other factories of the service without scanning the table.
struct EntryTable {
    /// Type identifiers as integers; 0 marks an empty slot.
    private var types: UnsafeMutablePointer<UInt>
    private var names: UnsafeMutablePointer<String?>
    private var values: UnsafeMutablePointer<Unmanaged<Entry>?>
    private var capacity: Int
    private(set) var count = 0
    /// How many entries take parameters; while zero, a miss needs no look for parameterised siblings.
    private(set) var parameterisedCount = 0
    /// The parameterised entries by service type, name and key kind, each group in no particular order; made
    /// with the first one. Out of line, so the table stays a trivial value that the hot path reads without
    /// retaining anything.
    private var parameterised: UnsafeMutablePointer<[ParamsGroup: [Entry]]>?

    init(capacity: Int = 16) {
        self.capacity = capacity
        types = .allocate(capacity: capacity)
        types.initialize(repeating: 0, count: capacity)
        names = .allocate(capacity: capacity)
        names.initialize(repeating: nil, count: capacity)
        values = .allocate(capacity: capacity)
        values.initialize(repeating: nil, count: capacity)
    }

    func destroy() {
        types.deallocate()
        names.deinitialize(count: capacity)
        names.deallocate()
        for index in 0..<capacity {
            values[index]?.release()
        }
        values.deinitialize(count: capacity)
        values.deallocate()
        if let parameterised {
            parameterised.deinitialize(count: 1)
            parameterised.deallocate()
        }
    }

    @inline(__always)
    static func hash(type: UInt, name: String?) -> Int {
        var hash = type &* 0x9E37_79B9_7F4A_7C15
        if var name {
            hash = name.withUTF8 { bytes in
                var hash = hash
                for byte in bytes {
                    hash = (hash ^ UInt(byte)) &* 0x0000_0100_0000_01B3
                }
                return hash
            }
        }
        return Int(bitPattern: hash ^ (hash >> 29))
    }

    @inline(__always)
    func find(_ key: RegistrationKey) -> Entry? {
        unretainedEntry(for: key)?.takeUnretainedValue()
    }

    /// The entry for `key` without retaining it: it stays alive only while nobody changes the table.
    @inline(__always)
    func unretainedEntry(for key: RegistrationKey) -> Unmanaged<Entry>? {
        let type = UInt(bitPattern: key.type)
        let mask = capacity - 1
        var index = Self.hash(type: type, name: key.name) & mask
        while true {
            let candidate = types[index]
            if candidate == 0 { return nil }
            if candidate == type && names[index] == key.name {
                return values[index]
            }
            index = (index + 1) & mask
        }
    }

    /// Inserts or replaces.
    mutating func insert(_ entry: Entry, for key: RegistrationKey) {
        if (count + 1) * 2 > capacity {
            rebuild(capacity: capacity * 2, dropping: nil)
        }
        let type = UInt(bitPattern: key.type)
        let mask = capacity - 1
        var index = Self.hash(type: type, name: key.name) & mask
        while types[index] != 0 {
            if types[index] == type && names[index] == key.name {
                if let old = values[index] {
                    let replaced = old.takeUnretainedValue()
                    if replaced.isParameterised { removeFromGroup(replaced) }
                    old.release()
                }
                values[index] = Unmanaged.passRetained(entry)
                if entry.isParameterised { addToGroup(entry) }
                return
            }
            index = (index + 1) & mask
        }
        types[index] = type
        names[index] = key.name
        values[index] = Unmanaged.passRetained(entry)
        count += 1
        if entry.isParameterised { addToGroup(entry) }
    }

    private mutating func addToGroup(_ entry: Entry) {
        parameterisedCount += 1
        let groups: UnsafeMutablePointer<[ParamsGroup: [Entry]]>
        if let parameterised {
            groups = parameterised
        } else {
            groups = .allocate(capacity: 1)
            groups.initialize(to: [:])
            parameterised = groups
        }
        groups.pointee[ParamsGroup(entry), default: []].append(entry)
    }

    private mutating func removeFromGroup(_ entry: Entry) {
        parameterisedCount -= 1
        let group = ParamsGroup(entry)
        parameterised?.pointee[group]?.removeAll { $0 === entry }
        if parameterised?.pointee[group]?.isEmpty == true { parameterised?.pointee[group] = nil }
    }

    /// Removes the entry for `key` when `matches` accepts it; returns whether one was removed.
    mutating func remove(_ key: RegistrationKey, where matches: (Entry) -> Bool = { _ in true }) -> Bool {
        guard let entry = find(key), matches(entry) else { return false }
        rebuild(capacity: capacity, dropping: key)
        return true
    }

    /// The parameterised entries whose service type, name and key kind match `key`'s (any signature).
    func parameterisedSiblings(serviceID: ObjectIdentifier, of key: RegistrationKey) -> [Entry] {
        guard parameterisedCount != 0, let parameterised else { return [] }
        return parameterised.pointee[ParamsGroup(serviceID: serviceID, name: key.name, isTypedKey: key.isTypedKey)]
            ?? []
    }

    mutating func removeAll() {
        destroy()
        self = EntryTable()
    }

    var entries: [Entry] {
        (0..<capacity).compactMap { values[$0]?.takeUnretainedValue() }
    }

    private mutating func rebuild(capacity newCapacity: Int, dropping dropped: RegistrationKey?) {
        var rebuilt = EntryTable(capacity: newCapacity)
        for index in 0..<capacity {
            guard let entry = values[index]?.takeUnretainedValue(), entry.key != dropped else { continue }
            rebuilt.insert(entry, for: entry.key)
        }
        destroy()
        self = rebuilt
    }
}

/// The registrations of one service under one name and key kind, whatever their parameter types.
struct ParamsGroup: Hashable {
    let serviceID: ObjectIdentifier
    let name: String?
    let isTypedKey: Bool

    init(serviceID: ObjectIdentifier, name: String?, isTypedKey: Bool) {
        self.serviceID = serviceID
        self.name = name
        self.isTypedKey = isTypedKey
    }

    init(_ entry: Entry) {
        self.init(serviceID: entry.serviceID, name: entry.key.name, isTypedKey: entry.key.isTypedKey)
    }
}
