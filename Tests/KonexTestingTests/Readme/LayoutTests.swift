import Foundation
import Testing

/// CONTRIBUTING.md's Layout table says which folders each source module and the test tree hold: it must be the truth.
@Suite struct LayoutTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Each `Sources/…` or `Tests/` entry of the table with the folders it lists (continuation lines included).
    static func table() throws -> [String: Set<String>] {
        let text = try String(contentsOf: root.appendingPathComponent("CONTRIBUTING.md"), encoding: .utf8)
        let layout = try #require(text.components(separatedBy: "## Layout").last)
        let block = try #require(
            layout.components(separatedBy: "```text\n").dropFirst().first?.components(
                separatedBy: "```"
            ).first)
        var table: [String: Set<String>] = [:]
        var current: String?
        for line in block.split(separator: "\n", omittingEmptySubsequences: true) {
            var words = line.split(separator: " ").map(String.init)
            if !line.hasPrefix(" ") {
                let path = words.removeFirst()
                current = path.hasPrefix("Sources/") || path == "Tests/" ? path : nil
                if let current { table[current] = [] }
            }
            guard let current else { continue }
            // Folder names end with "/"; a description in parentheses or plain words is not one.
            let folders = words.prefix { $0.hasSuffix("/") && !$0.hasPrefix("(") }
            table[current, default: []].formUnion(folders.map { String($0.dropLast()) })
        }
        return table
    }

    static func folders(in path: String) throws -> Set<String> {
        let url = root.appendingPathComponent(path)
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        return Set(
            names.filter { name in
                var isDirectory: ObjCBool = false
                return !name.hasSuffix(".docc")
                    && FileManager.default.fileExists(
                        atPath: url.appendingPathComponent(name).path, isDirectory: &isDirectory)
                    && isDirectory.boolValue
            })
    }

    /// The README's trait line and products are Package.swift's: every trait it declares, every library it offers.
    @Test func theReadmeNamesEveryTraitAndProductThePackageHas() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        func quoted(after marker: String, in text: String) -> Set<String> {
            Set(
                text.components(separatedBy: marker).dropFirst().compactMap {
                    $0.split(separator: "\"", maxSplits: 2, omittingEmptySubsequences: false).dropFirst().first.map(
                        String.init)
                })
        }
        let traits = quoted(after: ".trait(\n            name: ", in: manifest)
        #expect(traits == ["AsyncHTTPClient", "Tracing", "Metrics", "OpenAPI"])
        let traitLine = try #require(readme.split(separator: "\n").first { $0.contains("traits: [") })
        for trait in traits { #expect(traitLine.contains("\"\(trait)\""), "the README's trait line misses \(trait)") }
        for library in quoted(after: ".library(name: ", in: manifest) {
            #expect(readme.contains(library), "the README never names the product \(library)")
        }
    }

    @Test func everySourceModuleAndTestFolderIsListedWithItsFolders() throws {
        let table = try Self.table()
        let modules = try Self.folders(in: "Sources")
        #expect(Set(table.keys.filter { $0.hasPrefix("Sources/") }) == Set(modules.map { "Sources/\($0)/" }))
        for (path, listed) in table.sorted(by: { $0.key < $1.key }) {
            #expect(listed == (try Self.folders(in: path)), "CONTRIBUTING.md's Layout lists \(path) wrongly")
        }
    }
}
