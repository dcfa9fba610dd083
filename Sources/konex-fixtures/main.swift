import Foundation
import KonexTesting

// swift run konex-fixtures <directory> [--max-age-days N] [--secret VALUE]... [--journal FILE]
// Checks a fixture directory (see FixtureReport), prints a table, and exits 1 when there are problems.

var arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> [String] {
    var values: [String] = []
    while let index = arguments.firstIndex(of: name), index + 1 < arguments.count {
        values.append(arguments[index + 1])
        arguments.removeSubrange(index...(index + 1))
    }
    return values
}
let maximumAge = option("--max-age-days").last.flatMap(Int.init)
let secrets = option("--secret")
let journal = option("--journal").last.map { path in
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
}
guard let path = arguments.first, arguments.count == 1 else {
    print("usage: konex-fixtures <directory> [--max-age-days N] [--secret VALUE]... [--journal FILE]")
    exit(64)
}
let report = FixtureReport.check(
    FixtureDirectory(URL(fileURLWithPath: path)), maximumAge: maximumAge, secrets: secrets, journal: journal)
print(report.table)
exit(report.hasProblems ? 1 : 0)
