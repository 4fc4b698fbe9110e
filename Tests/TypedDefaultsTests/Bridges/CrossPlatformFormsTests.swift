import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// A settings file moved between a Mac and a Linux machine reads the same values on both: TypedDefaults reads
/// what Foundation writes natively on either platform, and what TypedDefaults writes is what a Mac's
/// `UserDefaults` accessors expect.
@Suite("Cross-platform stored forms")
struct CrossPlatformFormsTests {
    static let subSecond = Date(timeIntervalSinceReferenceDate: 816_942_874.364_757_4)

    @Test("the URL archive fixtures are keyed archives Foundation's own unarchiver reads")
    func fixturesAreRealArchives() throws {
        let plain = URLArchiveFixture.url("https://example.com/a?b=1#c")
        let unarchived = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSURL.self, from: plain)
        #expect(unarchived?.absoluteString == "https://example.com/a?b=1#c")
        let relative = URLArchiveFixture.url("guide/intro", base: "https://example.com/docs/")
        let withBase = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSURL.self, from: relative)
        #expect(withBase?.absoluteString == "https://example.com/docs/guide/intro")
    }

    @Test("a file as macOS writes it (binary, native dates, numbers, archived URLs) reads as typed values")
    func macOSFile() throws {
        let home = URL(fileURLWithPath: NSHomeDirectory())
        let file: [String: Any] = [
            "lastSync": Self.subSecond,
            "ratio": 0.1,
            "volume": NSNumber(value: Float(0.8)),
            "launchCount": 42,
            "bigCount": Int64.max,
            "enabled": true,
            "blob": Data([0, 1, 2, 0xFF]),
            "name": "héllo 🙂",
            "homepage": URLArchiveFixture.url("https://user@example.com:8443/a/b%20c?q=1&r=two#frag"),
            "document": URLArchiveFixture.url("~/Documents/My%20Report.txt"),
            "external": URLArchiveFixture.url("file:///Volumes/Data/report%20final.txt"),
            "guide": URLArchiveFixture.url("guide/intro?x=1#top", base: "https://example.com/docs/"),
            "notes": URLArchiveFixture.url("~/notes.txt", base: "file:///Users/ann/Projects/"),
            "recent": [URLArchiveFixture.url("https://a.example/"), URLArchiveFixture.url("mailto:ann@example.com")],
        ]
        let bytes = try PropertyListSerialization.data(fromPropertyList: file, format: .binary, options: 0)
        #expect(bytes.starts(with: Array("bplist00".utf8)))
        let suite = IsolatedSuite()
        try bytes.write(to: suite.fileURL)
        let defaults = suite.adapter

        let lastSync = defaults[key: Key<Date?>("lastSync")]
        #expect(lastSync?.timeIntervalSinceReferenceDate == Self.subSecond.timeIntervalSinceReferenceDate)
        #expect(defaults[key: Key<Double>("ratio", default: 0)] == 0.1)
        #expect(defaults[key: Key<Float>("volume", default: 0)] == 0.8)
        #expect(defaults[key: Key<Int>("launchCount", default: 0)] == 42)
        #expect(defaults[key: Key<Int64>("bigCount", default: 0)] == .max)
        #expect(defaults[key: Key<Bool>("enabled", default: false)])
        #expect(defaults[key: Key<Data>("blob", default: Data())] == Data([0, 1, 2, 0xFF]))
        #expect(defaults[key: Key<String>("name", default: "")] == "héllo 🙂")
        #expect(
            defaults[key: Key<URL?>("homepage")] == URL(string: "https://user@example.com:8443/a/b%20c?q=1&r=two#frag")
        )
        #expect(defaults[key: Key<URL?>("document")] == home.appendingPathComponent("Documents/My Report.txt"))
        #expect(defaults[key: Key<URL?>("external")] == URL(fileURLWithPath: "/Volumes/Data/report final.txt"))
        #expect(defaults[key: Key<URL?>("guide")] == URL(string: "https://example.com/docs/guide/intro?x=1#top"))
        #expect(defaults[key: Key<URL?>("notes")] == home.appendingPathComponent("notes.txt"))
        #expect(
            defaults[key: Key<[URL]>("recent", default: [])]
                == [URL(string: "https://a.example/")!, URL(string: "mailto:ann@example.com")!]
        )
        #expect(suite.diagnostics.isEmpty, "\(suite.diagnostics)")
    }

    @Test("what Foundation on Linux writes natively reads back, with the losses it makes when writing", .needsFileStore)
    func foundationOnLinuxWrites() throws {
        let suite = IsolatedSuite()
        let foundation = suite.foundationDefaults()
        foundation.set(Date(timeIntervalSinceReferenceDate: 1000.75), forKey: "date")
        foundation.set(URL(string: "https://x.y/z?q=1#f")!, forKey: "web")
        foundation.set(URL(fileURLWithPath: "/tmp/a b.txt"), forKey: "file")
        foundation.set(Float(3.14), forKey: "float")
        foundation.set(0.1, forKey: "double")
        foundation.set(Int.max, forKey: "int")
        foundation.set(true, forKey: "bool")
        foundation.set(Data([7, 8]), forKey: "data")
        foundation.set("text", forKey: "string")
        #expect(foundation.synchronize())

        let defaults = suite.adapter
        #expect(defaults[key: Key<Date?>("date")] == Date(timeIntervalSinceReferenceDate: 1000), "whole seconds")
        #expect(defaults[key: Key<URL?>("web")] == URL(fileURLWithPath: "/z"), "Foundation kept the path only")
        #expect(defaults[key: Key<URL?>("file")] == URL(fileURLWithPath: "/tmp/a b.txt"))
        #expect(defaults[key: Key<Float>("float", default: 0)] == 3.14)
        #expect(defaults[key: Key<Double>("double", default: 0)] == 0.1)
        #expect(defaults[key: Key<Int>("int", default: 0)] == .max)
        #expect(defaults[key: Key<Bool>("bool", default: false)])
        #expect(defaults[key: Key<Data>("data", default: Data())] == Data([7, 8]))
        #expect(defaults[key: Key<String>("string", default: "")] == "text")
    }

    @Test("every stored form TypedDefaults writes is what Foundation reads from the file, value for value")
    func foundationReadsEveryForm() throws {
        let suite = IsolatedSuite()
        try TypeMatrix.write(TypeMatrix.catalog, to: suite.adapter)
        let file = try suite.fileContents()
        for entry in TypeMatrix.catalog where !entry.key.hasSuffix(".removed") {
            let stored = try #require(suite.adapter.storedValue(forKey: entry.key), "\(entry.key)")
            let read = file[entry.key].flatMap(PropertyListValue.init(foundationObject:))
            #expect(read?.isIdentical(to: stored) == true, "\(entry.key): Foundation read \(String(describing: read))")
        }
    }

    @Test("a Mac's UserDefaults accessors see the values TypedDefaults wrote on Linux")
    func macAccessorsSeeTheValues() throws {
        let suite = IsolatedSuite()
        try TypeMatrix.write(TypeMatrix.catalog, to: suite.adapter)
        // A Mac reads the file through CFPreferences, which keeps it as a binary property list: the file goes
        // through that form here, and is read with the accessors as Apple documents them.
        let xml = try Data(contentsOf: suite.fileURL)
        let binary = try PropertyListSerialization.data(
            fromPropertyList: PropertyListSerialization.propertyList(from: xml, format: nil),
            format: .binary,
            options: 0
        )
        let mac = try MacUserDefaults(binary)

        #expect(mac.string(forKey: "String.value.2") == "héllo wörld 🙂")
        #expect(mac.bool(forKey: "Bool.value.0") == true)
        #expect(mac.bool(forKey: "BoolFalse.value.0") == false)
        #expect(mac.integer(forKey: "Int.value.1") == 42)
        #expect(mac.integer(forKey: "Int.value.3") == .max)
        #expect(mac.integer(forKey: "Int.value.4") == .min)
        #expect(mac.integer(forKey: "Int8.value.0") == -128)
        #expect(mac.number(forKey: "UInt64.value.3")?.uint64Value == .max, "an unsigned number, exact")
        #expect(mac.double(forKey: "Double.value.0") == 0.1)
        #expect(mac.double(forKey: "Double.value.2") == .pi)
        #expect(mac.double(forKey: "Double.value.3") == 0, "-0.0 is the text \"-0.0\", a number to double(forKey:)")
        #expect(mac.double(forKey: "Double.value.3").sign == .minus)
        #expect(mac.double(forKey: "Double.value.5") == .infinity)
        #expect(mac.double(forKey: "Double.value.7").isNaN)
        #expect(mac.float(forKey: "Float.value.0") == 3.14)
        #expect(mac.double(forKey: "CGFloat.value.0") == 1.5)
        #expect(mac.data(forKey: "Data.value.1") == Data([0, 1, 2, 0xFF]))
        #expect(mac.data(forKey: "Data.oneMegabyte")?.count == 1_048_576)

        // Dates, URLs, UUIDs and decimals are text on every platform: a Mac reads them with string(forKey:).
        let date = try #require(mac.string(forKey: "Date.value.0"))
        #expect(PreciseTimestamp.date(from: date) == Self.subSecond)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let parsed = try #require(formatter.date(from: date), "\(date) is ISO 8601 with fractional seconds")
        #expect(abs(parsed.timeIntervalSince(Self.subSecond)) < 0.001)
        #expect(mac.object(forKey: "Date.value.0") is String, "not a <date>: a Mac's `as? Date` is nil")
        #expect(mac.string(forKey: "URL.value.0") == "https://user@example.com:8443/a/b%20c?q=1&r=two#frag")
        #expect(mac.string(forKey: "URL.value.1") == "file:///tmp/typed-defaults/does%20not%20exist.txt")
        #expect(mac.string(forKey: "UUID.value.0") == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(mac.string(forKey: "Decimal.value.0") == "1.1")
        #expect(mac.string(forKey: "Theme.value.0") == "dark")
        #expect(mac.integer(forKey: "Priority.value.1") == -7)
        let profile = try #require(mac.string(forKey: "Profile.value.0"))
        #expect(
            profile.hasPrefix(#"{"joined":816942874.36475"#) && profile.hasSuffix(#""name":"Ann","tags":["a","b"]}"#)
        )

        #expect(
            mac.array(forKey: "String.array") as? [String] == [
                "", "plain", "héllo wörld 🙂", "<tag attr=\"x\"> & 'quote'", "tab\tnew\nline\r end", "  spaced  ",
            ]
        )
        #expect(Set(mac.array(forKey: "Set<String>") as? [String] ?? []) == ["a", "b", "c"])
        #expect(mac.dictionary(forKey: "Int.dictionary")?["k1"] as? Int == 42)
        #expect(mac.dictionary(forKey: "IntKeyedDictionary") as? [String: String] == ["1": "one", "-2": "minus two"])
        #expect(mac.object(forKey: "Int.optional.removed") == nil)

        // The same file, back on Linux in that binary form, reads every value exactly.
        let returned = IsolatedSuite()
        try binary.write(to: returned.fileURL)
        #expect(TypeMatrix.failures(TypeMatrix.catalog, in: returned.adapter) == [])
    }

    @Test(
        "hostile URL archives read as the default with a diagnostic, never a crash",
        arguments: [
            ("another class", archive(className: "NSString")),
            ("a Swift class", archive(className: "TypedDefaultsTestSupport.Bookmark")),
            ("another archiver", URLArchiveFixture.archive(objects: urlObjects(), archiver: "NSArchiver")),
            ("root out of range", URLArchiveFixture.archive(objects: urlObjects(), root: 99)),
            ("root is $null", URLArchiveFixture.archive(objects: urlObjects(), root: 0)),
            ("class out of range", archive(classReference: 4_000)),
            ("string out of range", archive(relativeReference: 65_000)),
            ("string is a number", archive(relative: .integer(3))),
            ("string is $null", archive(relativeReference: 0)),
            ("base is itself", archive(baseReference: 1)),
            ("not absolute", URLArchiveFixture.url("just words")),
            ("base chain too long", deepBaseChain(links: 40)),
            ("huge", URLArchiveFixture.url("https://example.com/" + String(repeating: "a", count: 1_100_000))),
            ("not a property list", Data("NSKeyedArchiver $objects".utf8)),
            ("an array", BinaryPropertyList.array([.string("$null")]).encoded),
        ]
    )
    func hostileArchives(kind: String, archive: Data) throws {
        let fallback = URL(string: "https://fallback.example/")!
        let suite = IsolatedSuite(fileContents: ["site": archive])
        #expect(suite.adapter[key: Key<URL>("site", default: fallback)] == fallback, "\(kind)")
        #expect(suite.adapter[key: Key<URL?>("site")] == nil, "\(kind)")
        let mismatch = suite.diagnostics.first { $0.kind == .storedValueMismatch && $0.key == "site" }
        #expect(mismatch?.message.contains("expected URL") == true, "\(kind): \(suite.diagnostics)")
    }

    @Test("a mutual cycle of bases, and every truncation and byte flip of an archive, read as a typed error or a URL")
    func damagedArchives() throws {
        let cycle = URLArchiveFixture.archive(objects: [
            .string("$null"),
            .dictionary([("NS.base", .uid(2)), ("NS.relative", .uid(3)), ("$class", .uid(4))]),
            .dictionary([("NS.base", .uid(1)), ("NS.relative", .uid(3)), ("$class", .uid(4))]),
            .string("a"),
            URLArchiveFixture.urlClass,
        ])
        #expect(throws: DefaultsBridgeError.self) { try URLBridge().deserialize(.data(cycle)) }

        let valid = URLArchiveFixture.url("guide/intro?x=1#top", base: "https://example.com/docs/")
        #expect(
            try URLBridge().deserialize(.data(valid)) == URL(string: "https://example.com/docs/guide/intro?x=1#top")
        )
        // A truncated archive has lost its property list's trailer: never a URL, always the reason why.
        for length in 0..<valid.count {
            #expect(throws: DefaultsBridgeError.self) { try URLBridge().deserialize(.data(valid.prefix(length))) }
        }
        // A flipped byte gives a typed error, or a URL whose stored form reads back as the same URL.
        var generator = SeededGenerator(seed: 25)
        for _ in 0..<2_000 {
            var damaged = valid
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(
                    in: 0...255,
                    using: &generator
                )
            }
            do {
                guard let url = try URLBridge().deserialize(.data(damaged)) else { continue }
                let stored = try #require(URLBridge().serialize(url))
                #expect(try URLBridge().deserialize(stored)?.absoluteString == url.absoluteString)
            } catch {
                #expect(error is DefaultsBridgeError, "\(error)")
            }
        }
    }

    @Test(
        "a binary property list holding a set, which crashes Foundation's reader on Linux, reads as damaged",
        .needsFileStore
    )
    func binarySets() throws {
        let withSet =
            BinaryPropertyList.dictionary([
                ("launchCount", .integer(3)), ("tags", .set([.string("a")])),
            ])
            .encoded
        let suite = IsolatedSuite()
        try withSet.write(to: suite.fileURL)
        #expect(suite.adapter.launchCount == 0)
        #expect(throws: DefaultsError.self) { try suite.adapter.checkHealth() }

        let archive = URLArchiveFixture.archive(objects: [.string("$null"), .set([.string("a")])])
        let bookmarks = IsolatedSuite(fileContents: ["bookmark": archive, "site": archive])
        let fallback = Bookmark(title: "fallback", page: 0)
        #expect(bookmarks.adapter[key: Key<Bookmark>("bookmark", default: fallback)].title == "fallback")
        #expect(bookmarks.adapter[key: Key<URL?>("site")] == nil)
        #expect(bookmarks.diagnostics.filter { $0.kind == .storedValueMismatch }.count == 2)
    }

    @Test(
        "a binary property list with another version in its header (bplist01...) holding a set is refused, not read",
        .needsFileStore,
        arguments: ["bplist01", "bplist0a", "bplist09", "bplist10", "bplist15"]
    )
    func otherBinaryVersions(header: String) throws {
        var withSet =
            BinaryPropertyList.dictionary([
                ("launchCount", .integer(3)), ("tags", .set([.string("a")])),
            ])
            .encoded
        withSet.replaceSubrange(0..<8, with: Array(header.utf8))
        let suite = IsolatedSuite()
        try withSet.write(to: suite.fileURL)
        #expect(suite.adapter.launchCount == 0)
        #expect(throws: DefaultsError.self) { try suite.adapter.checkHealth() }
        #expect(PropertyListValue(propertyListData: withSet) == nil)
        #expect(BinaryPropertyListReader.foundationCrash(on: withSet) != nil)
        // In a value too: a keyed archive with that header never reaches the unarchiver.
        var archive = URLArchiveFixture.archive(objects: [.string("$null"), .set([.string("a")])])
        archive.replaceSubrange(0..<8, with: Array(header.utf8))
        let bookmarks = IsolatedSuite(fileContents: ["site": archive])
        #expect(bookmarks.adapter[key: Key<URL?>("site")] == nil)
    }

    // MARK: - Hostile archives

    private static func urlObjects(
        className: String = "NSURL",
        relative: BinaryPropertyList = .string("https://example.com/"),
        classReference: UInt32 = 3,
        relativeReference: UInt32 = 2,
        baseReference: UInt32 = 0
    ) -> [BinaryPropertyList] {
        [
            .string("$null"),
            .dictionary([
                ("NS.base", .uid(baseReference)), ("NS.relative", .uid(relativeReference)),
                ("$class", .uid(classReference)),
            ]),
            relative,
            .dictionary([
                ("$classes", .array([.string(className), .string("NSObject")])), ("$classname", .string(className)),
            ]),
        ]
    }

    private static func archive(
        className: String = "NSURL",
        relative: BinaryPropertyList = .string("https://example.com/"),
        classReference: UInt32 = 3,
        relativeReference: UInt32 = 2,
        baseReference: UInt32 = 0
    ) -> Data {
        URLArchiveFixture.archive(
            objects: urlObjects(
                className: className,
                relative: relative,
                classReference: classReference,
                relativeReference: relativeReference,
                baseReference: baseReference
            )
        )
    }

    /// URL objects 1…links, each the base of the one before it.
    private static func deepBaseChain(links: Int) -> Data {
        let classIndex = UInt32(links + 2)
        var objects: [BinaryPropertyList] = [.string("$null")]
        for index in 1...links {
            let base = index == links ? 0 : UInt32(index + 1)
            objects.append(
                .dictionary([
                    ("NS.base", .uid(base)), ("NS.relative", .uid(UInt32(links + 1))), ("$class", .uid(classIndex)),
                ])
            )
        }
        objects.append(.string("a/"))
        objects.append(URLArchiveFixture.urlClass)
        return URLArchiveFixture.archive(objects: objects)
    }
}

/// What a Mac's `UserDefaults` accessors return for a file's values, applied as Apple documents them to what
/// Foundation parses from the file: `integer`, `double` and `float` take numbers, Booleans and numeric text;
/// `bool` takes Booleans, the numbers 1 and 0 and the text `YES`, `true` and `1`; `string`, `data`, `array`
/// and `dictionary` take only their own type.
private struct MacUserDefaults {
    let values: [String: Any]

    init(_ file: Data) throws {
        values = try #require(PropertyListSerialization.propertyList(from: file, format: nil) as? [String: Any])
    }

    func number(forKey key: String) -> NSNumber? { values[key] as? NSNumber }
    func string(forKey key: String) -> String? { values[key] as? String }
    func data(forKey key: String) -> Data? { values[key] as? Data }
    func array(forKey key: String) -> [Any]? { values[key] as? [Any] }
    func dictionary(forKey key: String) -> [String: Any]? { values[key] as? [String: Any] }
    func object(forKey key: String) -> Any? { values[key] }

    func integer(forKey key: String) -> Int {
        // `Int(exactly:)`: a number past `Int`'s range (32 bits on watchOS) reads as 0 here, not a trap.
        if let text = values[key] as? String {
            return Int(text) ?? Int(exactly: Double(text)?.rounded(.down) ?? 0) ?? 0
        }
        guard let number = values[key] as? NSNumber else { return 0 }
        let type = String(cString: number.objCType)
        if type == "d" || type == "f" { return Int(exactly: number.doubleValue.rounded(.down)) ?? 0 }
        return number.intValue
    }

    func double(forKey key: String) -> Double {
        if let text = values[key] as? String { return Double(text) ?? 0 }
        return (values[key] as? NSNumber)?.doubleValue ?? 0
    }

    func float(forKey key: String) -> Float { Float(double(forKey: key)) }

    func bool(forKey key: String) -> Bool {
        if let text = values[key] as? String { return ["yes", "true", "1"].contains(text.lowercased()) }
        return (values[key] as? NSNumber)?.doubleValue == 1
    }
}
