/// `--due` alone means `--due true`, in every vehicle command that takes it (`list`, `add`, `update`), so that
/// `add --due` (once a flag) and `update --due false` are both spelt the same way everywhere.
enum DueShorthand {
    /// `arguments` with `true` after each `--due` that is not followed by `true` or `false`.
    static func expand(_ arguments: [String]) -> [String] {
        var expanded: [String] = []
        expanded.reserveCapacity(arguments.count)
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            expanded.append(argument)
            index += 1
            if argument == "--" {
                expanded += arguments[index...]
                break
            }
            if argument == "--due", index == arguments.count || !["true", "false"].contains(arguments[index]) {
                expanded.append("true")
            }
        }
        return expanded
    }
}
