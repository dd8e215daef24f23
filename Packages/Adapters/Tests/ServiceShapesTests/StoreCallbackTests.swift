import Dispatch
import Foundation
import ModelKit
import ModelKitTesting
import ServiceShapes
import StoreKitLite
import StoreKitLiteSQLite
import Testing

/// The sample record: a vehicle of the fleet.
struct Vehicle: Record, Equatable {
    var id: ModelID<Vehicle>
    var plate = ""
    var modelYear = 0

    init(id: ModelID<Vehicle>) {
        self.id = id
    }

    static let schema = RecordSchema<Vehicle>("vehicles", Column("plate", \.plate), Column("modelYear", \.modelYear))
}

/// A SQLite file of its own per test, removed afterwards.
struct StoreFile: ~Copyable {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shapes-store-\(UUID().uuidString)")
    var path: String { folder.appendingPathComponent("fleet.sqlite").path }

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func open() async throws -> PersistenceService {
        try await PersistenceService.open(model: StoreModel(Vehicle.self), backend: SQLiteBackend(path: path))
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }
}

struct StoreCallbackTests {
    @Test func theCompletionRunsOnTheCompletionQueueWithTheCreatedRecord() async throws {
        let file = try StoreFile()
        let service = try await file.open()
        let queue = LabelledQueue("store callbacks")
        let (created, label) = await outcome { done in
            service.create(
                Vehicle.self,
                options: .saveAndPersist,
                initializer: { $0.plate = "callback" },
                completionQueue: queue.queue,
                completion: done
            )
        }
        #expect(try created.get().plate == "callback")
        #expect(label == queue.label)
        // What the callback wrote is in the file: a second service on it reads it.
        let reopened = try await file.open()
        #expect(try await reopened.fetch(Vehicle.self).map(\.plate) == ["callback"])
    }

    @Test func everyOperationHasACallbackForm() async throws {
        let file = try StoreFile()
        let service = try await file.open()
        let ids = try await outcome { done in
            service.create(
                Vehicle.self,
                from: [2019, 2021, 2023],
                options: .saveAndPersist,
                transform: { year, vehicle in
                    vehicle.plate = "AB-\(year)"
                    vehicle.modelYear = year
                },
                completion: done
            )
        }.result.get()
        #expect(ids.count == 3)
        let all = try await outcome { done in service.fetch(Query<Vehicle>(), completion: done) }.result.get()
        #expect(Set(all.map(\.plate)) == ["AB-2019", "AB-2021", "AB-2023"])
        let byID = try await outcome { done in service.fetch(ids: [ids[1]], completion: done) }.result.get()
        #expect(byID.map(\.plate) == ["AB-2021"])
        let plates = try await outcome { done in
            service.fetch(Query<Vehicle>().sorted(by: \.plate), transform: { $0.plate }, completion: done)
        }.result.get()
        #expect(plates == ["AB-2019", "AB-2021", "AB-2023"])
        let newest = try await outcome { done in
            service.fetchReadOnly(Query<Vehicle>(), process: { $0.map(\.modelYear).max() ?? 0 }, completion: done)
        }.result.get()
        #expect(newest == 2023)
        let first = try await outcome { done in
            service.fetchReadOnly(ids: [ids[0]], process: { $0.first?.plate }, completion: done)
        }.result.get()
        #expect(first == "AB-2019")
        let recent = await outcome { done in service.count(Query<Vehicle>(\.modelYear > 2020), completion: done) }
        #expect(try recent.result.get() == 2)
        let updated = try await outcome { done in
            service.update(
                Query<Vehicle>(\.modelYear == 2019),
                process: { vehicles in
                    for index in vehicles.indices { vehicles[index].modelYear = 2020 }
                    return .saveAndPersist
                },
                completion: done
            )
        }.result.get()
        #expect(updated == 1)
        let renamed = try await outcome { done in
            service.update(
                ids: [ids[1]],
                process: { vehicles in
                    vehicles[0].plate = "CD-2021"
                    return .saveAndPersist
                },
                completion: done
            )
        }.result.get()
        #expect(renamed == 1)
        let deleted = try await outcome { done in
            service.delete(Query<Vehicle>(\.modelYear == 2023), options: .dontSave, completion: done)
        }.result.get()
        #expect(deleted == 1)
        try await outcome { done in service.saveAll(.saveAndPersist, completion: done) }.result.get()
        let deletedByID = try await outcome { done in
            service.delete(ids: [ids[0]], options: .dontSave, completion: done)
        }.result.get()
        #expect(deletedByID == 1)
        let queue = LabelledQueue("rollback")
        let rolledBack = await outcome { done in service.rollback(completionQueue: queue.queue, completion: done) }
        #expect(rolledBack.queue == queue.label)
        let reopened = try await file.open()
        let stored = try await reopened.fetch(Query<Vehicle>().sorted(by: \.plate)).map(\.plate)
        #expect(stored == ["AB-2019", "CD-2021"])
    }

    @Test func aFailureIsTheTypedStoreError() async throws {
        let file = try StoreFile()
        let service = try await file.open()
        let (result, _) = await outcome { done in
            service.fetch(Query<Vehicle>(\.id == .init()), completion: done)
        }
        guard case .failure(let error) = result else {
            Issue.record("a query on the ID column ran")
            return
        }
        #expect(error.code == .invalidQuery)
    }

    @Test func aCancelledOperationCompletesOnceWithCancelled() async throws {
        let file = try StoreFile()
        let service = try await file.open()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let calls = LockedValue<[Result<[String], StoreError>]>([])
        let completed = Signal()
        // The transform blocks until the token is cancelled, so the cancel comes before the outcome.
        try await service.create(Vehicle.self, options: .saveAndPersist) { $0.plate = "held" }
        let token = service.fetch(
            Query<Vehicle>(),
            transform: { vehicle -> String in
                entered.signal()
                release.wait()
                return vehicle.plate
            }
        ) { result in
            calls.update { $0.append(result) }
            completed.fire()
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                entered.wait()
                continuation.resume()
            }
        }
        token.cancel()
        #expect(token.isCancelled)
        release.signal()
        await completed.wait()
        try await Task.sleep(for: .milliseconds(100))
        #expect(calls.value.count == 1)
        guard case .failure(let error) = calls.value.first else {
            Issue.record("a cancelled fetch delivered its records")
            return
        }
        #expect(error.code == .cancelled)
        #expect(token.isFinished)
    }

    @Test func everyCallCompletesExactlyOnceWhetherOrNotItIsCancelled() async throws {
        let file = try StoreFile()
        let service = try await file.open()
        try await service.create(Vehicle.self, from: [1, 2, 3], options: .saveAndPersist) { $1.modelYear = $0 }
        let calls = 200
        let outcomes = LockedValue<[Int: [Result<Int, StoreError>]]>([:])
        let allArrived = Signal()
        let queue = LabelledQueue("many")
        let wrongQueue = LockedValue(false)
        var tokens: [CancellableToken] = []
        for index in 0..<calls {
            tokens.append(
                service.count(Query<Vehicle>(), completionQueue: queue.queue) { result in
                    if LabelledQueue.current != queue.label { wrongQueue.value = true }
                    var arrived = 0
                    outcomes.update { outcomes in
                        outcomes[index, default: []].append(result)
                        arrived = outcomes.count
                    }
                    if arrived == calls { allArrived.fire() }
                }
            )
            if index.isMultiple(of: 2) { tokens[index].cancel() }
        }
        await allArrived.wait()
        try await Task.sleep(for: .milliseconds(200))
        let seen = outcomes.value
        #expect(seen.count == calls)
        #expect(seen.values.allSatisfy { $0.count == 1 })
        #expect(!wrongQueue.value)
        for (index, results) in seen {
            switch results.first {
            case .success(let count): #expect(count == 3 && !tokens[index].isCancelled)
            case .failure(let error): #expect(error.code == .cancelled && tokens[index].isCancelled)
            case nil: Issue.record("call \(index) did not complete")
            }
        }
        #expect(tokens.allSatisfy { $0.isFinished })
    }
}
