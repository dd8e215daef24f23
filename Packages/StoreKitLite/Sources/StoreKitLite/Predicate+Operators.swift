extension Predicate {
    /// Both predicates hold.
    public static func && (lhs: Predicate, rhs: Predicate) -> Predicate {
        switch (lhs.expression, rhs.expression) {
        case (.and(let left), .and(let right)): Predicate(.and(left + right))
        case (.and(let left), let right): Predicate(.and(left + [right]))
        case (let left, let right): Predicate(.and([left, right]))
        }
    }

    /// Either predicate holds.
    public static func || (lhs: Predicate, rhs: Predicate) -> Predicate {
        switch (lhs.expression, rhs.expression) {
        case (.or(let left), .or(let right)): Predicate(.or(left + right))
        case (.or(let left), let right): Predicate(.or(left + [right]))
        case (let left, let right): Predicate(.or([left, right]))
        }
    }

    /// The predicate does not hold (and is not unknown).
    public static prefix func ! (operand: Predicate) -> Predicate {
        Predicate(.not(operand.expression))
    }
}

/// `column == value`; `== nil` means `IS NULL`.
public func == <Root: Record, Value: StoreValueConvertible>(
    lhs: KeyPath<Root, Value>,
    rhs: Value
) -> Predicate<Root> {
    .compare(lhs, .equal, rhs)
}

/// `column <> value`; `!= nil` means `IS NOT NULL`.
public func != <Root: Record, Value: StoreValueConvertible>(
    lhs: KeyPath<Root, Value>,
    rhs: Value
) -> Predicate<Root> {
    .compare(lhs, .notEqual, rhs)
}

/// `column < value`.
public func < <Root: Record, Value: StoreValueConvertible>(lhs: KeyPath<Root, Value>, rhs: Value) -> Predicate<Root> {
    .compare(lhs, .less, rhs)
}

/// `column <= value`.
public func <= <Root: Record, Value: StoreValueConvertible>(
    lhs: KeyPath<Root, Value>,
    rhs: Value
) -> Predicate<Root> {
    .compare(lhs, .lessOrEqual, rhs)
}

/// `column > value`.
public func > <Root: Record, Value: StoreValueConvertible>(lhs: KeyPath<Root, Value>, rhs: Value) -> Predicate<Root> {
    .compare(lhs, .greater, rhs)
}

/// `column >= value`.
public func >= <Root: Record, Value: StoreValueConvertible>(
    lhs: KeyPath<Root, Value>,
    rhs: Value
) -> Predicate<Root> {
    .compare(lhs, .greaterOrEqual, rhs)
}
