public import Configuration
public import Logging
public import StoreKitLite
import StoreKitLiteSQLite

extension StoreModule {
    /// A module whose settings are read from `config` under `prefix` (environment variables, a JSON or YAML file,
    /// flags: whatever providers the reader has). A missing or mistyped key is not thrown here: it is one of the
    /// module's ``problems()``, so that `installChecked(_:)` reports it with every other problem at once.
    ///
    /// | key | value |
    /// |---|---|
    /// | `<prefix>.url` | required: `memory`, a file path or `file://` URL, or a `postgres://` URL |
    /// | `<prefix>.durability` | `full` (the default) or `normal`: SQLite's durability of a commit |
    /// | `<prefix>.execution` | `suspending` (the default) or `calling-thread`: where SQLite reads and commits run |
    /// | `<prefix>.maximumSizeBytes` | an integer: a cap on a SQLite file's size |
    /// | `<prefix>.changeFeed` | `this-process` or `all-processes`: which commits observers see |
    ///
    /// From environment variables the keys are upper-cased, with underscores between words: `STORE_URL`,
    /// `STORE_CHANGE_FEED`. The URL is read as a secret: it may carry a password, and access reporters then never
    /// show it.
    public init(
        name: String? = nil,
        model: StoreModel,
        reading config: ConfigReader,
        prefix: String = "store",
        mergePolicy: MergePolicy = .error,
        logger: Logger? = nil
    ) {
        self.init(name: name, url: "", model: model, mergePolicy: mergePolicy, logger: logger)
        var reader = SettingsReader(config, prefix: prefix, label: label)
        url = reader.requiredString("url", isSecret: true)
        let durability = reader.choice("durability", ["full": SQLiteBackend.Durability.full, "normal": .normal])
        let execution = reader.choice(
            "execution",
            ["suspending": SQLiteBackend.Execution.suspending, "calling-thread": .callingThread]
        )
        sqlite = SQLiteOptions(
            execution: execution ?? .suspending,
            durability: durability ?? .full,
            maximumSizeInBytes: reader.int("maximumSizeBytes")
        )
        changeFeed = reader.choice(
            "changeFeed",
            ["this-process": ChangeFeed.thisProcess, "all-processes": .allProcesses()]
        )
        settingProblems = reader.problems
    }
}
