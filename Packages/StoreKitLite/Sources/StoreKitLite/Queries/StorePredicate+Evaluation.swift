extension StorePredicate {
    /// Evaluates the expression over a row's values with SQL's three-valued logic: `nil` is unknown.
    public func evaluate(_ values: [StoreValue]) -> Bool? {
        switch self {
        case .constant(let value):
            return value
        case .comparison(let column, let comparison, let operand):
            let value = values[column.index]
            if value.isNull || operand.isNull { return nil }
            let order = StoreValue.order(value, operand)
            switch comparison {
            case .equal: return order == .same
            case .notEqual: return order != .same
            case .less: return order == .ascending
            case .lessOrEqual: return order != .descending
            case .greater: return order == .descending
            case .greaterOrEqual: return order != .ascending
            }
        case .isNull(let column):
            return values[column.index].isNull
        case .isNotNull(let column):
            return !values[column.index].isNull
        case .isIn(let column, let list):
            if list.isEmpty { return false }
            let value = values[column.index]
            if value.isNull { return nil }
            var sawNull = false
            for candidate in list {
                if candidate.isNull {
                    sawNull = true
                } else if StoreValue.order(value, candidate) == .same {
                    return true
                }
            }
            return sawNull ? nil : false
        case .hasPrefix(let column, let prefix):
            guard case .text(let text) = values[column.index] else {
                return values[column.index].isNull ? nil : false
            }
            return Array(text.utf8).starts(with: prefix.utf8)
        case .contains(let column, let needle):
            guard case .text(let text) = values[column.index] else {
                return values[column.index].isNull ? nil : false
            }
            return Self.bytes(Array(text.utf8), contain: Array(needle.utf8))
        case .and(let operands):
            var unknown = false
            for operand in operands {
                switch operand.evaluate(values) {
                case false?: return false
                case nil: unknown = true
                case true?: break
                }
            }
            return unknown ? nil : true
        case .or(let operands):
            var unknown = false
            for operand in operands {
                switch operand.evaluate(values) {
                case true?: return true
                case nil: unknown = true
                case false?: break
                }
            }
            return unknown ? nil : false
        case .not(let operand):
            return operand.evaluate(values).map { !$0 }
        }
    }

    private static func bytes(_ haystack: [UInt8], contain needle: [UInt8]) -> Bool {
        if needle.isEmpty { return true }
        if needle.count > haystack.count { return false }
        for start in 0...(haystack.count - needle.count)
        where haystack[start] == needle[0] && haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return true
        }
        return false
    }
}
