import Foundation
import OpenAPIRuntime

/// A vehicle as the daemon answered it, with the entity tag that came with it.
struct StoredVehicle {
    var vehicle: Components.Schemas.Vehicle
    var etag: String
}

/// What a client does with `/v2`, one check per step: create, read, revalidate, page, update with and without the
/// current revision, delete, and send a body the daemon refuses. A step whose input an earlier step did not make
/// is reported as not run (and failed), so one failure never hides behind another.
///
/// Dates stay out of the revision steps (the vehicle they use has no `lastServiced`), so a date the client cannot
/// read fails the date steps alone.
struct Scenario {
    /// Writes carry the bearer token.
    var client: Client
    /// The same, but every request body is replaced by a malformed one.
    var malformedBodyClient: Client
    /// Whole seconds: what the runtime's default date transcoder (ISO 8601 without fractional seconds) can write.
    var lastServiced = Date(timeIntervalSince1970: 1_700_000_000)

    func run(into report: inout CheckReport) async {
        let datedInput = Components.Schemas.VehicleInput(
            plate: "OAC-1",
            make: "Volvo",
            model: "FH16",
            modelYear: 2021,
            maintenance: .init(due: false, lastServiced: lastServiced)
        )
        let plainInput = Components.Schemas.VehicleInput(plate: "OAC-2", make: "Scania", model: "R500", modelYear: 2019)
        let dated = await report.check("create a vehicle with lastServiced (201, ETag)") {
            try await create(datedInput)
        }
        let plain = await report.check("create a vehicle without lastServiced (201, ETag)") {
            try await create(plainInput)
        }

        if let dated {
            await report.check("read the vehicle with lastServiced (values, lastServiced as sent)") {
                try await read(dated)
            }
        } else {
            report.notRun("read the vehicle with lastServiced (values, lastServiced as sent)", needs: "its create")
        }
        guard let plain else {
            for name in [
                "read the vehicle without lastServiced", "conditional read with If-None-Match (304)",
                "page through the list with limit=1", "update with If-Match (200, new revision)",
                "update with a stale If-Match (412)", "delete with If-Match (204)", "read after delete (404)",
            ] {
                report.notRun(name, needs: "the vehicle without lastServiced")
            }
            await checkRefusedBodies(into: &report)
            return
        }
        await report.check("read the vehicle without lastServiced") { try await read(plain) }
        await report.check("conditional read with If-None-Match (304)") { try await readIfNoneMatch(plain) }
        await report.check("page through the list with limit=1") {
            try await page(expecting: [plain.vehicle.id] + (dated.map { [$0.vehicle.id] } ?? []))
        }

        let updated = await report.check("update with If-Match (200, new revision)") { try await update(plain) }
        if updated != nil {
            await report.check("update with a stale If-Match (412)") { try await updateStale(plain) }
        } else {
            report.notRun("update with a stale If-Match (412)", needs: "an update")
        }
        let deleted = await report.check("delete with If-Match (204)") { try await delete(updated ?? plain) }
        if let deleted {
            await report.check("read after delete (404)") { try await readDeleted(deleted) }
        } else {
            report.notRun("read after delete (404)", needs: "a delete")
        }
        await checkRefusedBodies(into: &report)
    }

    private func checkRefusedBodies(into report: inout CheckReport) async {
        await report.check("malformed body (400 problem+json decodes)") { try await createMalformed() }
        await report.check("invalid value (422 problem+json with errors decodes)") { try await createInvalid() }
    }

    // MARK: - Steps

    private func create(_ input: Components.Schemas.VehicleInput) async throws -> StoredVehicle {
        let output = try await client.createVehicleV2(body: .json(input))
        guard case .created(let created) = output else { throw CheckFailure.unexpected(output, expected: "201") }
        let vehicle = try created.body.json
        let etag = try tag(created.headers.ETag, of: vehicle)
        try expect(vehicle.plate == input.plate, "plate \(vehicle.plate), sent \(input.plate)")
        try expect(vehicle.make == input.make && vehicle.model == input.model, "make and model differ from those sent")
        try expect(vehicle.modelYear == input.modelYear, "modelYear \(vehicle.modelYear), sent \(input.modelYear)")
        try expect(vehicle.revision == 1, "revision \(vehicle.revision), not 1")
        try expectLastServiced(vehicle, input.maintenance?.lastServiced)
        let location = created.headers.Location ?? "none"
        try expect(location.hasSuffix("/v2/vehicles/\(vehicle.id)"), "Location \(location) does not name the vehicle")
        return StoredVehicle(vehicle: vehicle, etag: etag)
    }

    private func read(_ stored: StoredVehicle) async throws {
        let output = try await client.getVehicleV2(path: .init(id: stored.vehicle.id))
        guard case .ok(let ok) = output else { throw CheckFailure.unexpected(output, expected: "200") }
        let vehicle = try ok.body.json
        try expect(vehicle == stored.vehicle, "the vehicle read differs from the one created")
        try expectLastServiced(vehicle, stored.vehicle.maintenance.lastServiced)
        try expect(ok.headers.ETag == stored.etag, "ETag \(ok.headers.ETag ?? "none"), created with \(stored.etag)")
    }

    private func readIfNoneMatch(_ stored: StoredVehicle) async throws {
        let output = try await client.getVehicleV2(
            path: .init(id: stored.vehicle.id),
            headers: .init(If_hyphen_None_hyphen_Match: stored.etag)
        )
        guard case .notModified(let notModified) = output else {
            throw CheckFailure.unexpected(output, expected: "304")
        }
        let etag = notModified.headers.ETag
        try expect(etag == nil || etag == stored.etag, "304 with ETag \(etag ?? ""), not \(stored.etag)")
    }

    private func page(expecting ids: [String]) async throws {
        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let output = try await client.listVehiclesV2(query: .init(limit: 1, cursor: cursor))
            guard case .ok(let ok) = output else { throw CheckFailure.unexpected(output, expected: "200") }
            let page = try ok.body.json
            pages += 1
            try expect(page.items.count <= 1, "page \(pages) has \(page.items.count) items at limit=1")
            try expect(pages <= 1_000, "more than 1000 pages")
            seen += page.items.map(\.id)
            cursor = page.nextCursor
        } while cursor != nil
        try expect(Set(seen).count == seen.count, "a vehicle appears on two pages")
        for id in ids {
            try expect(seen.contains(id), "vehicle \(id) is on no page (\(pages) pages)")
        }
        try expect(pages >= ids.count, "\(pages) pages for \(ids.count) vehicles at limit=1")
    }

    private func update(_ stored: StoredVehicle) async throws -> StoredVehicle {
        let output = try await client.updateVehicleV2(
            path: .init(id: stored.vehicle.id),
            headers: .init(If_hyphen_Match: stored.etag),
            body: .json(.init(model: "R520", maintenance: .init(due: true)))
        )
        guard case .ok(let ok) = output else { throw CheckFailure.unexpected(output, expected: "200") }
        let vehicle = try ok.body.json
        let etag = try tag(ok.headers.ETag, of: vehicle)
        let revision = stored.vehicle.revision + 1
        try expect(vehicle.revision == revision, "revision \(vehicle.revision), not \(revision)")
        try expect(vehicle.model == "R520" && vehicle.maintenance.due, "the change is not in the vehicle answered")
        try expect(vehicle.plate == stored.vehicle.plate, "a member the patch left out changed")
        return StoredVehicle(vehicle: vehicle, etag: etag)
    }

    private func updateStale(_ stale: StoredVehicle) async throws {
        let output = try await client.updateVehicleV2(
            path: .init(id: stale.vehicle.id),
            headers: .init(If_hyphen_Match: stale.etag),
            body: .json(.init(model: "R580"))
        )
        guard case .preconditionFailed(let problem) = output else {
            throw CheckFailure.unexpected(output, expected: "412")
        }
        try expectProblem(problem, status: 412)
    }

    private func delete(_ stored: StoredVehicle) async throws -> StoredVehicle {
        let output = try await client.deleteVehicleV2(
            path: .init(id: stored.vehicle.id),
            headers: .init(If_hyphen_Match: stored.etag)
        )
        guard case .noContent = output else { throw CheckFailure.unexpected(output, expected: "204") }
        return stored
    }

    private func readDeleted(_ stored: StoredVehicle) async throws {
        let output = try await client.getVehicleV2(path: .init(id: stored.vehicle.id))
        guard case .notFound(let problem) = output else { throw CheckFailure.unexpected(output, expected: "404") }
        try expectProblem(problem, status: 404)
    }

    private func createMalformed() async throws {
        let input = Components.Schemas.VehicleInput(plate: "OAC-9", make: "MAN", model: "TGX", modelYear: 2020)
        let output = try await malformedBodyClient.createVehicleV2(body: .json(input))
        guard case .badRequest(let problem) = output else { throw CheckFailure.unexpected(output, expected: "400") }
        try expectProblem(problem, status: 400)
    }

    private func createInvalid() async throws {
        let input = Components.Schemas.VehicleInput(plate: "OAC-8", make: "DAF", model: "XF", modelYear: 1800)
        let output = try await client.createVehicleV2(body: .json(input))
        guard case .unprocessableContent(let problem) = output else {
            throw CheckFailure.unexpected(output, expected: "422")
        }
        let document = try expectProblem(problem, status: 422)
        let paths = (document.errors ?? []).map(\.path)
        try expect(paths.contains { $0.contains("modelYear") }, "no error names modelYear (errors at \(paths))")
    }

    // MARK: - Expectations

    private func expect(_ condition: Bool, _ reason: @autoclosure () -> String) throws {
        guard condition else { throw CheckFailure(reason()) }
    }

    /// The entity tag a vehicle answer carries: its revision as a strong tag.
    private func tag(_ etag: String?, of vehicle: Components.Schemas.Vehicle) throws -> String {
        guard let etag else { throw CheckFailure("no ETag") }
        try expect(
            etag == "\"\(vehicle.revision)\"",
            "ETag \(etag) is not revision \(vehicle.revision) as a strong tag"
        )
        return etag
    }

    private func expectLastServiced(_ vehicle: Components.Schemas.Vehicle, _ sent: Date?) throws {
        let answered = vehicle.maintenance.lastServiced
        try expect(
            answered == sent,
            "lastServiced \(answered.map { "\($0)" } ?? "none"), sent \(sent.map { "\($0)" } ?? "none")"
        )
    }

    @discardableResult
    private func expectProblem(
        _ problem: Components.Responses.Problem,
        status: Int
    ) throws -> Components.Schemas.Problem {
        let document = try problem.body.application_problem_plus_json
        try expect(document.status == status, "problem status \(document.status), not \(status)")
        try expect(!document.title.isEmpty, "problem without a title")
        return document
    }
}
