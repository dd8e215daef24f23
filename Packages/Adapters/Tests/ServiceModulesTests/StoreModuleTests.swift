import Configuration
import Foundation
import LocatorKit
import Logging
import ModelKit
import ServiceLifecycle
import ServiceModules
import StoreKitLite
import StoreKitLiteSQLite
import Testing

/// A record of the sample store.
struct Note: Record, Equatable {
    var id: ModelID<Note>
    var text = ""

    init(id: ModelID<Note>) {
        self.id = id
    }

    static let schema = RecordSchema<Note>("notes", Column("text", \.text))
}

/// A folder of its own per test, removed afterwards.
struct ScratchFolder: ~Copyable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("service-modules-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

enum PostgresServer {
    static let url: String? = ProcessInfo.processInfo.environment["STOREKITLITE_POSTGRES_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }
    static let skipReason: Comment =
        "STOREKITLITE_POSTGRES_URL is not set; Scripts/postgres run -- swift test starts a throwaway server"

    /// The server's URL with a schema of its own for one test.
    static func freshSchemaURL() throws -> String {
        guard let url else { try Test.cancel(skipReason) }
        let schema = "modules_" + UUID().uuidString.prefix(8).lowercased()
        return url + (url.contains("?") ? "&" : "?") + "schema=" + schema
    }
}

struct StoreModuleTests {
    let model = StoreModel(Note.self)

    @Test func everyProblemOfEveryModuleIsReportedAtOnceAndNothingIsInstalled() throws {
        let locator = Locator()
        let modules: [any ValidatedModule] = [
            StoreModule(url: "", model: model),
            StoreModule(name: "archive", url: "/no/such/folder/archive.sqlite", model: model),
            StoreModule(name: "remote", url: "postgres://", model: model),
            StoreModule(name: "ftp", url: "ftp://example.invalid/x", model: model),
            StoreModule(name: "relative", url: "file://notes.sqlite", model: model),
            RequestClientModule(name: "billing", baseURL: "not a url at all"),
            RequestClientModule(name: "maps", baseURL: ""),
        ]
        let error = #expect(throws: ModuleConfigurationError.self) { try locator.installChecked(modules) }
        #expect(error?.code == .invalidConfiguration)
        let problems = error?.problems ?? []
        #expect(problems.count == 7, "\(problems)")
        #expect(
            problems.contains { $0.hasPrefix("store \"relative\": the file URL file://notes.sqlite names no path") }
        )
        #expect(problems.contains { $0.hasPrefix("store: the URL is empty") })
        #expect(problems.contains { $0.hasPrefix("store \"archive\": the folder /no/such/folder") })
        #expect(problems.contains { $0.hasPrefix("store \"remote\":") })
        #expect(problems.contains { $0.hasPrefix("store \"ftp\": the URL scheme ftp:") })
        #expect(problems.contains { $0.hasPrefix("client \"billing\": the base URL not a url at all") })
        #expect(problems.contains { $0.hasPrefix("client \"maps\": the base URL is empty") })
        #expect(error?.description.hasPrefix("7 configuration problems:") == true)
        #expect(!locator.isRegistered(StoreStack.self))
        #expect(!locator.isRegistered(StoreStack.self, name: "archive"))
        #expect(!locator.isRegistered(RequestClientStack.self, name: "billing"))
    }

    @Test func aFileStoreKeepsWhatWasSavedAcrossLocators() async throws {
        let folder = try ScratchFolder()
        let path = folder.path("notes.sqlite")
        for round in 0..<2 {
            let locator = Locator()
            try locator.installChecked([StoreModule(url: "file://" + path, model: model)])
            let stack = try await locator.resolve(StoreStack.self)
            #expect(stack.kind == .sqlite)
            let store = try await locator.resolve(PersistenceService.self)
            #expect(store === stack.service)
            try await store.waitUntilInitialized()
            if round == 0 {
                try await store.create(Note.self, options: .saveAndPersist) { $0.text = "kept" }
            } else {
                #expect(try await store.fetch(Note.self).map(\.text) == ["kept"])
            }
            try await locator.resolve(ModuleLifecycles.self).shutdown()
        }
    }

    @Test func severalNamedStoresLiveInOneLocatorAndCloseInReverseOrder() async throws {
        let folder = try ScratchFolder()
        let locator = Locator()
        try locator.installChecked([
            StoreModule(url: "memory", model: model),
            StoreModule(name: "audit", url: folder.path("audit.sqlite"), model: model),
        ])
        let audit = try await locator.resolve(PersistenceService.self, name: "audit")
        let main = try await locator.resolve(PersistenceService.self)
        #expect(audit !== main)
        #expect(try await locator.resolve(StoreStack.self).kind == .memory)
        try await main.waitUntilInitialized()
        try await audit.waitUntilInitialized()
        try await main.create(Note.self, options: .saveAndPersist) { $0.text = "main" }
        #expect(try await audit.count(Note.self) == 0)
        let lifecycles = try await locator.resolve(ModuleLifecycles.self)
        #expect(lifecycles.labels == ["store \"audit\"", "store"])
        try await lifecycles.shutdown()
        try await lifecycles.shutdown()  // a second time does nothing
        await #expect(throws: StoreError.self) { try await main.count(Note.self) }
        await #expect(throws: StoreError.self) { try await audit.count(Note.self) }
    }

    @Test func aStoreIsClosedOnlyAfterTheServicesListedAfterItHaveStopped() async throws {
        let folder = try ScratchFolder()
        let locator = Locator()
        try locator.installChecked([StoreModule(url: folder.path("work.sqlite"), model: model)])
        let store = try await locator.resolve(PersistenceService.self)
        try await store.waitUntilInitialized()
        let worker = FinalSaveWorker(store: store)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: try await locator.resolve(ModuleLifecycles.self).services.map { .init(service: $0) }
                    + [.init(service: worker)],
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            )
        )
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await worker.started.wait()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        // The worker's last save, made while shutting down, reached the file before the store closed.
        #expect(worker.finalSave.withLock { $0 } == .success)
        await #expect(throws: StoreError.self) { try await store.count(Note.self) }
        let reopened = Locator()
        try reopened.installChecked([StoreModule(url: folder.path("work.sqlite"), model: model)])
        let again = try await reopened.resolve(PersistenceService.self)
        try await again.waitUntilInitialized()
        #expect(try await again.fetch(Note.self).map(\.text) == ["written while shutting down"])
        try await reopened.resolve(ModuleLifecycles.self).shutdown()
    }

    @Test(.enabled(if: PostgresServer.url != nil, PostgresServer.skipReason))
    func aPostgresURLChoosesPostgreSQL() async throws {
        let url = try PostgresServer.freshSchemaURL()
        let writer = Locator()
        try writer.installChecked([StoreModule(url: url, model: model)])
        let reader = Locator()
        try reader.installChecked([StoreModule(url: url, model: model)])
        let stack = try await writer.resolve(StoreStack.self)
        #expect(stack.kind == .postgresql)
        let store = stack.service
        try await store.waitUntilInitialized()
        let other = try await reader.resolve(PersistenceService.self)
        try await other.waitUntilInitialized()
        try await store.create(Note.self, options: .saveAndPersist) { $0.text = "shared" }
        #expect(try await other.fetch(Note.self).map(\.text) == ["shared"])
        #expect(try await reader.resolve(StoreStack.self).changeFeedStatus.isFollowing)
        try await writer.resolve(ModuleLifecycles.self).shutdown()
        try await reader.resolve(ModuleLifecycles.self).shutdown()
    }
}

/// A service that saves one record when the group shuts down, as a worker finishing its last unit of work does.
struct FinalSaveWorker: Service {
    enum Outcome: Equatable { case pending, success, failure(String) }

    let store: PersistenceService
    let started = Signal()
    let finalSave = Shared(Outcome.pending)

    func run() async throws {
        started.send()
        try? await gracefulShutdown()
        // Give the store a chance to be closed too early, if the order were wrong.
        try? await Task.sleep(for: .milliseconds(50))
        do {
            try await store.create(Note.self, options: .saveAndPersist) { $0.text = "written while shutting down" }
            finalSave.withLock { $0 = .success }
        } catch {
            finalSave.withLock { $0 = .failure("\(error)") }
        }
    }
}

/// Settings read by key from swift-configuration providers: what is missing or mistyped is one more problem in the
/// one error.
struct ConfigurationReadingTests {
    @Test func missingAndMistypedKeysAreReportedWithEveryOtherProblem() throws {
        let config = ConfigReader(
            provider: InMemoryProvider(values: [
                "store.durability": "sometimes",
                "store.maximumSizeBytes": "lots",
                "billing.baseURL": "https://billing.example.invalid/v1/",
                "billing.connectTimeoutSeconds": "soon",
                "billing.maximumConnectionsPerHost": 0,
                "billing.cache": "file",
            ])
        )
        let locator = Locator()
        let error = #expect(throws: ModuleConfigurationError.self) {
            try locator.installChecked([
                StoreModule(model: StoreModel(Note.self), reading: config),
                RequestClientModule(name: "billing", reading: config, prefix: "billing"),
            ])
        }
        let problems = error?.problems ?? []
        #expect(
            problems == [
                "store: store.url is missing",
                "store: store.durability must be one of full, normal, not \"sometimes\"",
                "store: store.maximumSizeBytes must be an integer, not \"lots\"",
                "client \"billing\": billing.connectTimeoutSeconds must be a number of seconds, not \"soon\"",
                "client \"billing\": billing.cachePath is missing",
                "client \"billing\": at least one connection per host is needed",
            ],
            "\(problems)"
        )
        #expect(!locator.isRegistered(StoreStack.self))
    }

    @Test func settingsFromEnvironmentVariablesWireAWorkingStore() async throws {
        let folder = try ScratchFolder()
        let config = ConfigReader(
            provider: EnvironmentVariablesProvider(environmentVariables: [
                "STORE_URL": folder.path("env.sqlite"),
                "STORE_DURABILITY": "normal",
                "STORE_CHANGE_FEED": "all-processes",
            ])
        )
        let module = StoreModule(model: StoreModel(Note.self), reading: config)
        #expect(module.problems() == [])
        #expect(module.url == folder.path("env.sqlite"))
        #expect(module.sqlite.durability == .normal)
        let locator = Locator()
        try locator.installChecked([module])
        let store = try await locator.resolve(PersistenceService.self)
        try await store.waitUntilInitialized()
        try await store.create(Note.self, options: .saveAndPersist) { $0.text = "from the environment" }
        #expect(try await locator.resolve(StoreStack.self).changeFeedStatus.isFollowing)
        try await locator.resolve(ModuleLifecycles.self).shutdown()
    }
}
