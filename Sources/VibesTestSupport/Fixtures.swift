import Foundation

/// The small fixture files kept in the repository (see `Fixtures/README.md` for their sources).
public enum Fixtures {
    /// The path of a fixture file, such as `csv/tidytuesday-excerpt.csv`.
    public static func path(_ name: String) -> String {
        Bundle.module.url(forResource: "Fixtures/" + name, withExtension: nil)!.path
    }

    /// The bytes of a fixture file.
    public static func data(_ name: String) -> Data {
        FileManager.default.contents(atPath: path(name))!
    }
}
