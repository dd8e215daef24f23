import Foundation
public import LocatorKit
public import Logging
public import StoreKitLite
public import StoreKitLitePostgres
public import StoreKitLiteSQLite

/// Registers a StoreKitLite store whose backend a URL chooses:
///
/// | URL | backend |
/// |---|---|
/// | `memory` | a private in-memory SQLite database |
/// | a path, or a `file://` URL | a SQLite file, created when missing |
/// | `postgres://user:password@host:port/database?schema=…` (or `postgresql://`) | PostgreSQL, its own connection pool |
///
/// Resolving ``StoreStack`` (or `PersistenceService`, under the module's ``name``) makes the backend and the root
/// service once; the service starts creating or migrating the store at that moment, in the background. Nothing is
/// opened or connected before. The stack's ``StoreStack/lifecycle`` closes the store on graceful shutdown and is
/// added to the locator's ``ModuleLifecycles``.
public struct StoreModule: ValidatedModule {
    /// Settings that only a SQLite file uses.
    public struct SQLiteOptions: Sendable, Hashable {
        /// Where reads and commits run (suspending on GRDB's queues unless told).
        public var execution: SQLiteBackend.Execution
        /// How durable a commit is when it returns (`full` unless told).
        public var durability: SQLiteBackend.Durability
        /// A cap on the file's size; writes beyond it fail with `StoreError.Code.diskFull`.
        public var maximumSizeInBytes: Int?

        public init(
            execution: SQLiteBackend.Execution = .suspending,
            durability: SQLiteBackend.Durability = .full,
            maximumSizeInBytes: Int? = nil
        ) {
            self.execution = execution
            self.durability = durability
            self.maximumSizeInBytes = maximumSizeInBytes
        }
    }

    /// The registration name (`nil` for the unnamed store): several stores can live in one locator.
    public var name: String?
    /// Where the store is (see the table above).
    public var url: String
    /// The store's record types and migrations.
    public var model: StoreModel
    /// What commits do on optimistic-concurrency conflicts.
    public var mergePolicy: MergePolicy
    /// Which commits observers see; `nil` keeps the backend's default: this process's on SQLite, every process's
    /// on PostgreSQL.
    public var changeFeed: ChangeFeed?
    /// Settings of a SQLite file; ignored by the other backends.
    public var sqlite: SQLiteOptions
    /// Where the backend logs, if anywhere.
    public var logger: Logger?
    /// What was missing or mistyped when the settings were read from a configuration reader.
    var settingProblems: [String] = []

    public init(
        name: String? = nil,
        url: String,
        model: StoreModel,
        mergePolicy: MergePolicy = .error,
        changeFeed: ChangeFeed? = nil,
        sqlite: SQLiteOptions = SQLiteOptions(),
        logger: Logger? = nil
    ) {
        self.name = name
        self.url = url
        self.model = model
        self.mergePolicy = mergePolicy
        self.changeFeed = changeFeed
        self.sqlite = sqlite
        self.logger = logger
    }

    var label: String { "store" + (name.map { " \"\($0)\"" } ?? "") }

    public func problems() -> [String] {
        var problems = settingProblems
        do throws(StoreError) {
            try model.validate()
        } catch {
            problems.append("\(label): the model is not valid: \(error.detail)")
        }
        switch StoreLocation(url) {
        case .none:
            // Read from a configuration, a missing URL is already a problem of its own.
            if settingProblems.isEmpty {
                problems.append("\(label): the URL is empty; give a file path, `memory` or a postgres:// URL")
            }
        case .unsupported(let scheme):
            problems.append(
                "\(label): the URL scheme \(scheme): is not a store; give a file path, `memory` or a postgres:// URL"
            )
        case .fileURLWithoutPath:
            problems.append("\(label): the file URL \(url) names no path; write file:///absolute/path.sqlite")
        case .memory:
            break
        case .file(let path):
            let folder = (path as NSString).deletingLastPathComponent
            var isDirectory: ObjCBool = false
            if path.hasSuffix("/") {
                problems.append("\(label): \(path) names a folder, not a database file")
            } else if !folder.isEmpty,
                !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) || !isDirectory.boolValue
            {
                problems.append("\(label): the folder \(folder) of the database file does not exist")
            }
        case .postgres(let url):
            do throws(StoreError) {
                _ = try PostgresBackend.Configuration(url: url)
            } catch {
                problems.append("\(label): \(error.detail)")
            }
        }
        if let size = sqlite.maximumSizeInBytes, size <= 0 {
            problems.append("\(label): the most bytes of a SQLite file must be positive, not \(size)")
        }
        return problems
    }

    public func register(in locator: Locator) throws(LocatorError) {
        try ModuleLifecycles.register(in: locator)
        let module = self
        try locator.register(StoreStack.self, name: name) { resolver in
            let stack = try StoreStack(module)
            try resolver.resolve(ModuleLifecycles.self).append(stack.lifecycle)
            return stack
        }
        try locator.register(PersistenceService.self, name: name) { resolver in
            try resolver.resolve(StoreStack.self, name: module.name).service
        }
    }
}

/// What a ``StoreModule`` registers: the backend its URL chose, the root service on it, and the service that
/// closes it.
public final class StoreStack: Sendable {
    /// Which backend a store runs on.
    public enum Kind: String, Sendable, Hashable {
        /// A SQLite file.
        case sqlite
        /// A private in-memory SQLite database.
        case memory
        /// PostgreSQL.
        case postgresql
    }

    /// Which backend the URL chose.
    public let kind: Kind
    /// The backend.
    public let backend: any StoreBackend
    /// The root persistence service; it is initializing from the moment the stack is made
    /// (`waitUntilInitialized()` waits for it).
    public let service: PersistenceService
    /// Closes the store (the persistence service, then its backend) on graceful shutdown.
    public let lifecycle: ModuleLifecycleService
    private let feedStatus: @Sendable () -> ChangeFeedStatus
    private let poolStatus: (@Sendable () -> PostgresPoolStatus)?

    init(_ module: StoreModule) throws(ModuleConfigurationError) {
        let problems = module.problems()
        guard problems.isEmpty else {
            throw ModuleConfigurationError(.invalidConfiguration, problems: problems)
        }
        switch StoreLocation(module.url) {
        case .memory:
            let backend = SQLiteBackend(location: .memory, logger: module.logger)
            (kind, self.backend, feedStatus, poolStatus) = (.memory, backend, { backend.changeFeedStatus }, nil)
        case .file(let path):
            let backend = SQLiteBackend(
                path: path,
                execution: module.sqlite.execution,
                durability: module.sqlite.durability,
                maximumSizeInBytes: module.sqlite.maximumSizeInBytes,
                changeFeed: module.changeFeed ?? .thisProcess,
                logger: module.logger
            )
            (kind, self.backend, feedStatus, poolStatus) = (.sqlite, backend, { backend.changeFeedStatus }, nil)
        case .postgres(let url):
            var configuration: PostgresBackend.Configuration
            do throws(StoreError) {
                configuration = try PostgresBackend.Configuration(url: url)
            } catch {
                throw ModuleConfigurationError(
                    .invalidConfiguration,
                    problems: ["\(module.label): \(error.detail)"],
                    underlying: error
                )
            }
            if let changeFeed = module.changeFeed { configuration.changeFeed = changeFeed }
            let backend = PostgresBackend(configuration: configuration, logger: module.logger)
            (kind, self.backend) = (.postgresql, backend)
            (feedStatus, poolStatus) = ({ backend.changeFeedStatus }, { backend.poolStatus })
        case .none, .unsupported, .fileURLWithoutPath:
            throw ModuleConfigurationError(.invalidConfiguration, problems: problems)
        }
        let service = PersistenceService(model: module.model, backend: backend, mergePolicy: module.mergePolicy)
        self.service = service
        lifecycle = ModuleLifecycleService(label: module.label, logger: module.logger) {
            try await service.close()
        }
    }

    /// Whether the backend follows other processes' commits, and how far it has got (see `ChangeFeed`).
    public var changeFeedStatus: ChangeFeedStatus { feedStatus() }

    /// How a PostgreSQL backend uses its connection pool; `nil` for SQLite, which has no pool.
    public var postgresPoolStatus: PostgresPoolStatus? { poolStatus?() }
}

/// A store URL, taken apart.
enum StoreLocation: Equatable {
    case memory
    case file(String)
    case postgres(String)
    case unsupported(scheme: String)
    case fileURLWithoutPath

    init?(_ url: String) {
        let url = url.trimmingCharacters(in: .whitespaces)
        if url.isEmpty { return nil }
        if url == "memory" || url == ":memory:" {
            self = .memory
        } else if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            self = .postgres(url)
        } else if url.hasPrefix("file://") {
            guard let path = URL(string: url)?.path, !path.isEmpty else {
                self = .fileURLWithoutPath
                return
            }
            self = .file(path)
        } else if let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") {
            self = .unsupported(scheme: String(url[..<colon]))
        } else {
            self = .file(url)
        }
    }
}
