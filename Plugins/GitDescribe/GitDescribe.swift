import Foundation
import PackagePlugin

/// Writes `GitDescription.swift`, holding `gitDescription`: what `git describe --tags --always
/// --dirty` says of the package's checkout at build time (a tag, a commit, `-dirty` for local
/// changes), or `unknown` outside a git checkout. `vibes-analyze --version` prints it beside the
/// version number. The file is rewritten only when the description changes, so an unchanged
/// checkout rebuilds nothing.
@main
struct GitDescribe: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "GitDescription.swift")
        let script = """
            description=$(git -C "$1" describe --tags --always --dirty 2>/dev/null | tr -cd 'A-Za-z0-9._+-')
            [ -n "$description" ] || description=unknown
            printf '/// The checkout this program was built from, as `git describe` gave it.\\n' > "$2.new"
            printf 'let gitDescription = "%s"\\n' "$description" >> "$2.new"
            if cmp -s "$2.new" "$2"; then rm -f "$2.new"; else mv "$2.new" "$2"; fi
            """
        return [
            .prebuildCommand(
                displayName: "git describe",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "git-describe", context.package.directoryURL.path, output.path],
                outputFilesDirectory: context.pluginWorkDirectoryURL
            )
        ]
    }
}
