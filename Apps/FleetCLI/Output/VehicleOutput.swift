import FleetClient
import FleetModels
import Foundation
import ModelKit

/// Prints vehicles as a table (terminal), tab-separated lines (pipe) or JSON (`--json`).
struct VehicleOutput {
    let context: CommandContext
    let json: Bool

    // MARK: - Lists

    func list(_ vehicles: [V2.Vehicle]) throws {
        if json { return try printJSON(vehicles) }
        let rows = vehicles.map { vehicle in
            [
                vehicle.id.uuidString, vehicle.plate, vehicle.make, vehicle.model, String(vehicle.modelYear),
                vehicle.maintenance.due ? "yes" : "no", vehicle.maintenance.lastServiced.map(Self.date) ?? Self.never,
                String(vehicle.revision),
            ]
        }
        table(["ID", "PLATE", "MAKE", "MODEL", "YEAR", "DUE", "LAST SERVICED", "REV"], rows, dueColumn: 5)
    }

    func list(_ vehicles: [V1.Vehicle]) throws {
        if json { return try printJSON(vehicles) }
        let rows = vehicles.map { vehicle in
            [
                vehicle.id.uuidString, vehicle.tag, vehicle.make, vehicle.model, String(vehicle.year),
                vehicle.needsMaintenance ? "yes" : "no",
            ]
        }
        table(["ID", "TAG", "MAKE", "MODEL", "YEAR", "NEEDS MAINTENANCE"], rows, dueColumn: 5)
    }

    // MARK: - One vehicle

    func one(_ vehicle: V2.Vehicle) throws {
        if json { return try printJSON(vehicle) }
        fields([
            ("id", vehicle.id.uuidString), ("plate", vehicle.plate), ("make", vehicle.make), ("model", vehicle.model),
            ("modelYear", String(vehicle.modelYear)), ("due", vehicle.maintenance.due ? "yes" : "no"),
            ("lastServiced", vehicle.maintenance.lastServiced.map(Self.date) ?? Self.never),
            ("revision", String(vehicle.revision)),
        ])
    }

    func one(_ vehicle: V1.Vehicle) throws {
        if json { return try printJSON(vehicle) }
        fields([
            ("id", vehicle.id.uuidString), ("tag", vehicle.tag), ("make", vehicle.make), ("model", vehicle.model),
            ("year", String(vehicle.year)), ("needsMaintenance", vehicle.needsMaintenance ? "yes" : "no"),
        ])
    }

    // MARK: - Building blocks

    func printJSON(_ value: some Encodable) throws {
        let encoder = ModelCoding.makeEncoder(prettyPrinted: true)
        encoder.outputFormatting.insert(.sortedKeys)
        let data = try encoder.encode(value)
        context.output.write(data, to: .standardOutput)
        context.output.write("\n")
    }

    /// A padded table with a header on a terminal; tab-separated lines without a header otherwise.
    func table(_ header: [String], _ rows: [[String]], dueColumn: Int?) {
        guard context.outputIsTerminal else {
            for row in rows {
                context.output.line(row.joined(separator: "\t"))
            }
            return
        }
        let color = context.usesColor
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func pad(_ cell: String, _ index: Int) -> String {
            index == widths.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
        }
        let headerLine = header.enumerated().map { pad($0.element, $0.offset) }.joined(separator: "  ")
        context.output.line(color ? Style.bold(headerLine) : headerLine)
        for row in rows {
            let cells = row.enumerated().map { index, cell -> String in
                let padded = pad(cell, index)
                guard color, index == dueColumn else { return padded }
                return cell == "yes" ? Style.yellow(padded) : Style.green(padded)
            }
            context.output.line(cells.joined(separator: "  "))
        }
        if rows.isEmpty {
            context.output.line(color ? Style.dim("(no vehicles)") : "(no vehicles)")
        }
    }

    /// `name: value` lines.
    func fields(_ pairs: [(String, String)]) {
        let width = pairs.map(\.0.count).max() ?? 0
        for (name, value) in pairs {
            let label = (name + ":").padding(toLength: width + 1, withPad: " ", startingAt: 0)
            context.output.line("\(context.usesColor ? Style.bold(label) : label) \(value)")
        }
    }

    /// What tables, lines and `get` print for a vehicle that was never serviced.
    static let never = "never"

    static func date(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}

/// ANSI styles, used only when colour is on.
enum Style {
    static func bold(_ text: String) -> String { "\u{1B}[1m\(text)\u{1B}[0m" }
    static func dim(_ text: String) -> String { "\u{1B}[2m\(text)\u{1B}[0m" }
    static func green(_ text: String) -> String { "\u{1B}[32m\(text)\u{1B}[0m" }
    static func yellow(_ text: String) -> String { "\u{1B}[33m\(text)\u{1B}[0m" }
}
