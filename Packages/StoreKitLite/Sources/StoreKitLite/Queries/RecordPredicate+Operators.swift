extension RecordPredicate {
    /// Both predicates hold.
    public static func && (lhs: RecordPredicate, rhs: RecordPredicate) -> RecordPredicate {
        switch (lhs.expression, rhs.expression) {
        case (.and(let left), .and(let right)): RecordPredicate(.and(left + right))
        case (.and(let left), let right): RecordPredicate(.and(left + [right]))
        case (let left, let right): RecordPredicate(.and([left, right]))
        }
    }

    /// Either predicate holds.
    public static func || (lhs: RecordPredicate, rhs: RecordPredicate) -> RecordPredicate {
        switch (lhs.expression, rhs.expression) {
        case (.or(let left), .or(let right)): RecordPredicate(.or(left + right))
        case (.or(let left), let right): RecordPredicate(.or(left + [right]))
        case (let left, let right): RecordPredicate(.or([left, right]))
        }
    }

    /// The predicate does not hold (and is not unknown).
    public static prefix func ! (operand: RecordPredicate) -> RecordPredicate {
        RecordPredicate(.not(operand.expression))
    }
}

/// `column == value`; `== nil` means `IS NULL`.
public func == <Root: Record, Value: StoreValueConvertible>(
    lhs: KeyPath<Root, Value>,
    rhs: Value
) -> RecordPredicate<Root> {
    .compare(lhs, .equal, rhs)
}

/// `column <> value`; `!= nil` means `IS NOT NULL`.
public func != <Root: Record, Value: StoreValueConvertible>(
    lhs: KeyPath<Root, Value>,
    rhs: Value
) -> RecordPredicate<Root> {
    .compare(lhs, .notEqual, rhs)
}

/// `column < value`.
public func < <Root: Record, Value: StoreValueConvertible>(
    lhs: KeyPath<Root, Value>,
    rhs: Value
) -> RecordPredicate<Root> {
    .compare(lhs, .less, rhs)
}

/// `column <= value`.
public func <= <Root: Record, Value: StoreValueConvertible>(
    lhs: KeyPath<Root, Value>,
    rhs: Value
) -> RecordPredicate<Root> {
    .compare(lhs, .lessOrEqual, rhs)
}

/// `column > value`.
public func > <Root: Record, Value: StoreValueConvertible>(
    lhs: KeyPath<Root, Value>,
    rhs: Value
) -> RecordPredicate<Root> {
    .compare(lhs, .greater, rhs)
}

/// `column >= value`.
public func >= <Root: Record, Value: StoreValueConvertible>(
    lhs: KeyPath<Root, Value>,
    rhs: Value
) -> RecordPredicate<Root> {
    .compare(lhs, .greaterOrEqual, rhs)
}
