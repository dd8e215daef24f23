/// A usage error that fleet words itself: what is wrong, and where to read more.
struct UsageProblem: Sendable, Hashable {
    /// One sentence or two, such as `Unknown option '--mak'. Did you mean '--make'?`.
    var message: String
    /// Where to read more, such as `See 'fleet vehicles add --help' for the options.`.
    var hint: String

    /// The two lines printed on standard error without `--json`.
    var text: String { "Error: \(message)\n  \(hint)" }
}
