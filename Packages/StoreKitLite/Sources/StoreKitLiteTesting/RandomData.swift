import Foundation
import ModelKitTesting
import StoreKitLite

/// Random rows and queries for the property-based check: `NULL`s, mixed case, shared prefixes, Unicode that is
/// canonically equal but byte-different, and numeric boundaries.
enum RandomData {
    static let names = [
        "alpha", "Alpha", "ALPHA", "alphabet", "al", "a", "", "beta", "Beta", "zulu", "Zulu", "e\u{301}", "\u{e9}",
        "it's", "100%", "_x_", "ünïcødé", "🚗car", "car🚗",
    ]
    static let scores: [Int64?] = [nil, .min, -1_000, -1, 0, 1, 2, 3, 42, 1_000, .max]
    static let ratios: [Double?] = [nil, -1e300, -2.5, -1, 0, 0.5, 1, 2, 2.5, 1e300]
    static let payloads: [[UInt8]?] = [nil, [], [0], [0, 1], [1], [255], [0, 0]]
    static let needles = ["", "a", "A", "al", "Al", "lph", "ph", "\u{e9}", "e", "'", "%", "_", "🚗", "zz"]

    static func row(using random: inout SeededGenerator) -> StoreRow {
        StoreRow(
            id: UUID(),
            revision: 0,
            values: [
                .text(names.randomElement(using: &random) ?? ""),
                (scores.randomElement(using: &random) ?? nil).map { .integer($0) } ?? .null,
                (ratios.randomElement(using: &random) ?? nil).map { .real($0) } ?? .null,
                (payloads.randomElement(using: &random) ?? nil).map { .blob(Data($0)) } ?? .null,
                .integer(Int64.random(in: 0...1, using: &random)),
            ]
        )
    }

    static func value(forColumn index: Int, using random: inout SeededGenerator) -> StoreValue {
        switch index {
        case 0: .text(names.randomElement(using: &random) ?? "")
        case 1: .integer((scores.compactMap { $0 }).randomElement(using: &random) ?? 0)
        case 2: .real((ratios.compactMap { $0 }).randomElement(using: &random) ?? 0)
        case 3: .blob(Data((payloads.compactMap { $0 }).randomElement(using: &random) ?? []))
        default: .integer(Int64.random(in: 0...1, using: &random))
        }
    }

    static func predicate(entity: EntityDescription, depth: Int, using random: inout SeededGenerator) -> StorePredicate
    {
        let index = Int.random(in: 0..<entity.columns.count, using: &random)
        let column = ColumnReference(name: entity.columns[index].name, index: index)
        let choice = Int.random(in: 0..<(depth > 0 ? 10 : 7), using: &random)
        switch choice {
        case 0, 1:
            let comparison = StorePredicate.Comparison.allCases.randomElement(using: &random) ?? .equal
            return .comparison(column, comparison, value(forColumn: index, using: &random))
        case 2:
            return Bool.random(using: &random) ? .isNull(column) : .isNotNull(column)
        case 3:
            var list = (0..<Int.random(in: 0...3, using: &random)).map { _ in value(forColumn: index, using: &random) }
            if Int.random(in: 0..<4, using: &random) == 0 { list.append(.null) }
            return .isIn(column, list)
        case 4, 5:
            let name = ColumnReference(name: entity.columns[0].name, index: 0)
            let needle = needles.randomElement(using: &random) ?? ""
            return choice == 4 ? .hasPrefix(name, needle) : .contains(name, needle)
        case 6:
            return .constant(Bool.random(using: &random))
        case 7:
            return .not(predicate(entity: entity, depth: depth - 1, using: &random))
        case 8:
            return .and(
                (0..<Int.random(in: 0...3, using: &random)).map { _ in
                    predicate(entity: entity, depth: depth - 1, using: &random)
                }
            )
        default:
            return .or(
                (0..<Int.random(in: 0...3, using: &random)).map { _ in
                    predicate(entity: entity, depth: depth - 1, using: &random)
                }
            )
        }
    }

    static func query(entity: EntityDescription, using random: inout SeededGenerator) -> RowQuery {
        let sortKeys = (0..<Int.random(in: 0...2, using: &random)).map { _ in
            let index = Int.random(in: 0..<entity.columns.count, using: &random)
            return SortKey(
                column: ColumnReference(name: entity.columns[index].name, index: index),
                ascending: Bool.random(using: &random)
            )
        }
        return RowQuery(
            entity: entity,
            predicate: predicate(entity: entity, depth: 3, using: &random),
            sortKeys: sortKeys,
            limit: Bool.random(using: &random) ? Int.random(in: 0...40, using: &random) : nil,
            offset: Bool.random(using: &random) ? Int.random(in: 0...20, using: &random) : 0
        )
    }
}
