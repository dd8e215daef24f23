import Fluent
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import Logging
import Vapor

// fleetd's two v2 reads (`GET /v2/vehicles/:id`, `GET /v2/vehicles?limit=…`) and its create (`POST /v2/vehicles`)
// as Vapor's documentation teaches them: a Fluent model, a migration, `Content` and `Validatable` values. The JSON
// encoder is set up to write the same text as fleetd (sorted members, dates with milliseconds), so the two answer
// the same bytes.
//
// Usage (Vapor's own commands; the database is the SQLite file `DATABASE_PATH` or the PostgreSQL database
// `DATABASE_URL`, the token writes need comes from `API_TOKEN`):
//   DATABASE_PATH=/tmp/vapor.sqlite API_TOKEN=secret vapor-baseline migrate --yes
//   DATABASE_PATH=/tmp/vapor.sqlite API_TOKEN=secret vapor-baseline serve --hostname 127.0.0.1 --port 8082 --env production
//   DATABASE_URL=postgres://user:password@127.0.0.1:5432/vapor API_TOKEN=secret vapor-baseline serve …

@main
enum Entrypoint {
    static func main() async throws {
        var environment = try Environment.detect()
        try LoggingSystem.bootstrap(from: &environment)
        let app = try await Application.make(environment)
        do {
            try configure(app)
            try await app.execute()
        } catch {
            app.logger.report(error: error)
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }

    static func configure(_ app: Application) throws {
        if let url = Environment.get("DATABASE_URL") {
            // Fluent's PostgreSQL driver with its documented defaults (one connection per event loop).
            app.databases.use(try .postgres(url: url), as: .psql)
        } else if let path = Environment.get("DATABASE_PATH") {
            app.databases.use(.sqlite(.file(path)), as: .sqlite)
        } else {
            throw Abort(
                .internalServerError,
                reason: "set DATABASE_PATH to the SQLite file or DATABASE_URL to the PostgreSQL database to serve"
            )
        }
        app.migrations.add(CreateVehicle())

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // fleetd writes milliseconds only when a date has a fraction of a second; so does this, to answer the same JSON.
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
            let whole = milliseconds.truncatingRemainder(dividingBy: 1000) == 0
            try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: !whole)))
        }
        ContentConfiguration.global.use(encoder: encoder, for: .json)

        guard let token = Environment.get("API_TOKEN") else {
            throw Abort(.internalServerError, reason: "set API_TOKEN to the bearer token writes need")
        }
        try app.register(collection: VehicleController(token: token))
    }
}
