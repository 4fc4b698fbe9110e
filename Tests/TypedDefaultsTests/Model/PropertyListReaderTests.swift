import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// The library's own XML reader reads every file it accepts exactly as Foundation's reader does, accepts the
/// files the writers in use produce, and leaves everything else to Foundation.
@Suite("Property-list XML reader")
struct PropertyListReaderTests {
    /// What a suite file reads as through Foundation's reader and conversion: the reading the library's own
    /// reader must match.
    static func foundationReading(_ data: Data) -> PropertyListValue? {
        guard BinaryPropertyListReader.foundationCrash(on: data) == nil,
            let object = try? PropertyListSerialization.propertyList(from: data, format: nil)
        else { return nil }
        return PropertyListValue(foundationObject: object)
    }

    static func storable(seed: UInt64, count: Int) -> [String: PropertyListValue] {
        let entries = GeneratedValues.entries(seed: seed, count: count) + GeneratedValues.fixedEntries
        var values: [String: PropertyListValue] = [:]
        for entry in entries where entry.refusal == nil { values[entry.key] = entry.value }
        return values
    }

    /// The file as Foundation's XML writer lays it out.
    static func foundationXML(_ values: [String: PropertyListValue]) throws -> Data {
        try PropertyListSerialization.data(
            fromPropertyList: PropertyListValue.dictionary(values).foundationObject,
            format: .xml,
            options: 0
        )
    }

    @Test("random trees, written by the library's writer and by Foundation's, read exactly as Foundation reads them")
    func generatedFiles() throws {
        for seed: UInt64 in [1, 2, 3, 4, 5, 6, 7, 8] {
            let values = Self.storable(seed: seed, count: 25)
            for (writer, file) in [
                ("PropertyListXML", PropertyListXML.data(values)), ("Foundation", try Self.foundationXML(values)),
            ] {
                let own = try #require(PropertyListXMLReader.value(from: file), "seed \(seed), \(writer)'s file")
                let foundation = try #require(Self.foundationReading(file))
                #expect(own.isIdentical(to: foundation), "seed \(seed), \(writer)'s file")
                #expect(PropertyListValue(propertyListData: file).isIdentical(to: foundation))
            }
            // The library's own writer's files come back as the values written.
            #expect(
                PropertyListXMLReader.value(from: PropertyListXML.data(values)).isIdentical(to: .dictionary(values))
            )
        }
    }

    @Test(
        "a suite holding every supported type in every shape is read by the library's reader as Foundation reads it",
        .needsFileStore
    )
    func typeMatrixFile() throws {
        let suite = IsolatedSuite()
        try TypeMatrix.write(TypeMatrix.catalog, to: suite.adapter)
        let file = try Data(contentsOf: suite.fileURL)
        let own = try #require(PropertyListXMLReader.value(from: file))
        #expect(own.isIdentical(to: try #require(Self.foundationReading(file))))
        // Another adapter loads the file through the library's reader and gets every value back exactly.
        let reader = try suite.secondAdapter(keyStore: DefaultsKeys())
        #expect(TypeMatrix.failures(TypeMatrix.catalog, in: reader) == [])
    }

    @Test("mutated files: the reader returns nothing, or exactly what Foundation's reader returns")
    func mutatedFiles() throws {
        var random = SeededGenerator(seed: 12)
        let small = Self.storable(seed: 21, count: 3).filter { $0.value.summary.count < 40 }
        let bases = [
            PropertyListXML.data(small), try Self.foundationXML(small), Data(Self.pythonSample.utf8),
            Data(Self.defaultsExportSample.utf8),
        ]
        let interesting = Array("<>/&;#x=\r\n\t -+.0123456789eEZT:aAQ".utf8) + [0, 0x80, 0xC3, 0xEF, 0xBB, 0xBF, 0xFF]
        var accepted = 0
        for round in 0..<3000 {
            var bytes = Array(random.pick(bases))
            for _ in 0...random.below(3) {
                let at = random.below(bytes.count)
                switch random.below(6) {
                case 0: bytes[at] ^= UInt8(1 << random.below(8))
                case 1: bytes[at] = random.pick(interesting)
                case 2: bytes.insert(random.pick(interesting), at: at)
                case 3: bytes.removeSubrange(at..<min(bytes.count, at + 1 + random.below(8)))
                case 4: bytes.removeSubrange(at...)
                default:
                    let end = min(bytes.count, at + 1 + random.below(40))
                    bytes.insert(contentsOf: bytes[at..<end], at: random.below(bytes.count))
                }
                if bytes.isEmpty { bytes = [UInt8(ascii: "<")] }
            }
            let file = Data(bytes)
            guard let own = PropertyListXMLReader.value(from: file) else { continue }
            accepted += 1
            let foundation = Self.foundationReading(file)
            #expect(foundation.isIdentical(to: own), "round \(round): \(String(decoding: bytes, as: UTF8.self))")
        }
        // Some mutations (a changed digit, letter or line break) leave files the reader still reads.
        #expect(accepted > 100)
    }

    @Test("files as Python's plistlib and macOS's defaults export write them are read by the library's reader")
    func foreignWriters() throws {
        for sample in [Self.pythonSample, Self.defaultsExportSample] {
            let file = Data(sample.utf8)
            let own = try #require(PropertyListXMLReader.value(from: file))
            #expect(own.isIdentical(to: try #require(Self.foundationReading(file))))
        }
        let python = try #require(PropertyListXMLReader.value(from: Data(Self.pythonSample.utf8)))
        guard case .dictionary(let values) = python else { return #expect(Bool(false), "not a dictionary") }
        #expect(values["big"] == .unsignedInteger(.max))
        #expect(values["neg"] == .integer(.min))
        #expect(values["ratio"] == .double(1e-05))
        #expect(values["ninf"] == .double(-.infinity))
        #expect(values["nan"]?.isIdentical(to: .double(.nan)) == true)
        #expect(values["cr"] == .string("a\r\nb"))
        #expect(values["name"] == .string("Frog & <Toad>"))
        #expect(values["blob"] == .data(Data(0..<60)))
        #expect(values["when"] == .date(Date(timeIntervalSince1970: 1_795_249_565)))
        #expect(values["list"] == .array([.integer(1), .string("two"), .array([]), .dictionary([:])]))
    }

    @Test(
        "what the reader does not recognise, or Foundation reads differently from its text, goes to Foundation",
        arguments: [
            #"<!DOCTYPE plist [<!ENTITY e "expanded">]><plist><string>&e;</string></plist>"#,
            #"<?xml version="1.0" encoding="ISO-8859-1"?><plist><string>x</string></plist>"#,
            "\u{FEFF}<plist><true/></plist>",
            "<!-- note --><plist><true/></plist>",
            "<plist><string><![CDATA[a<b]]></string></plist>",
            "<plist><string>&#xFEFF;abc</string></plist>",
            "<plist><dict><key>\u{FEFF}k</key><true/></dict></plist>",
            "<plist><dict><key>CF$UID</key><integer>1</integer></dict></plist>",
            "<plist><dict><key>a</key><integer>1</integer><key>a</key><integer>2</integer></dict></plist>",
            "<plist><dict><key>\u{E9}</key><true/><key>e\u{301}</key><false/></dict></plist>",
            "<plist><integer> 5</integer></plist>", "<plist><integer>0x10</integer></plist>",
            "<plist><integer>+5</integer></plist>", "<plist><real>NaN</real></plist>",
            "<plist><real>1e400</real></plist>", "<plist><real> 1.5</real></plist>",
            "<plist><date>2001-02-30T00:00:00Z</date></plist>", "<plist><data>QUJD!</data></plist>",
            "<plist><data>QQ==QQ==</data></plist>", "<plist><true></true></plist>",
            "<plist version=\"1.0\" ><true/></plist>", "<plist><true/></plist> trailing",
            "<plist><string>a\u{0}b</string></plist>", "<plist><string>&#x;</string></plist>",
            "<plist><string>&#+65;</string></plist>", "<plist><string>&#x-41;</string></plist>",
        ]
    )
    func fallback(_ text: String) {
        let file = Data(text.utf8)
        #expect(PropertyListXMLReader.value(from: file) == nil)
        #expect(PropertyListValue(propertyListData: file).isIdentical(to: Self.foundationReading(file)))
    }

    @Test("512 nested arrays and dictionaries, the suite's included, are read; one more is refused, as Foundation does")
    func nestingLimit() throws {
        let readable = PropertyListXML.data(["deep": GeneratedValues.nested(depth: 511)])
        let unreadable = PropertyListXML.data(["deep": GeneratedValues.nested(depth: 512)])
        let own = try #require(PropertyListXMLReader.value(from: readable))
        #expect(own.isIdentical(to: try #require(Self.foundationReading(readable))))
        #expect(PropertyListXMLReader.value(from: unreadable) == nil)
        #expect(PropertyListValue(propertyListData: unreadable) == nil)
        // Far deeper input is refused without recursing through it.
        let hostile = "<plist>" + String(repeating: "<array>", count: 200_000) + "</plist>"
        #expect(PropertyListXMLReader.value(from: Data(hostile.utf8)) == nil)
    }

    @Test("the deepest readable file is read on a thread with a 128 KiB stack, even in a debug build")
    func smallStack() {
        // The failure: a recursive reader needed over 1 MiB of stack for 512 levels in a debug build, and a
        // suite read on a small-stack thread crashed the process. Foundation's own reader needs 512 KiB.
        let file = PropertyListXML.data(["deep": GeneratedValues.nested(depth: 511)])
        let done = DispatchSemaphore(value: 0)
        let result = Locked<PropertyListValue?>(nil)
        let thread = Thread {
            result.withLock { $0 = PropertyListXMLReader.value(from: file) }
            done.signal()
        }
        thread.stackSize = 128 << 10
        thread.start()
        done.wait()
        #expect(result.withLock { $0 } != nil)
    }

    /// Python's `plistlib.dumps`: tabs, literal carriage returns, `inf`, `1e-05`, Base64 in 76-column lines.
    static let pythonSample = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>big</key>
        \t<integer>18446744073709551615</integer>
        \t<key>blob</key>
        \t<data>
        \tAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEy
        \tMzQ1Njc4OTo7
        \t</data>
        \t<key>cr</key>
        \t<string>a\r\nb</string>
        \t<key>empty</key>
        \t<string></string>
        \t<key>inf</key>
        \t<real>inf</real>
        \t<key>list</key>
        \t<array>
        \t\t<integer>1</integer>
        \t\t<string>two</string>
        \t\t<array/>
        \t\t<dict/>
        \t</array>
        \t<key>name</key>
        \t<string>Frog &amp; &lt;Toad&gt;</string>
        \t<key>nan</key>
        \t<real>nan</real>
        \t<key>neg</key>
        \t<integer>-9223372036854775808</integer>
        \t<key>ninf</key>
        \t<real>-inf</real>
        \t<key>ratio</key>
        \t<real>1e-05</real>
        \t<key>when</key>
        \t<date>2026-11-21T08:26:05Z</date>
        </dict>
        </plist>

        """

    /// macOS's `defaults export` (Foundation's writer): 17-digit reals, `<string/>`, references, no final
    /// line feed.
    static let defaultsExportSample = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>NSWindow Frame Main</key>
        \t<string>100 200 800 600 0 0 1440 875 </string>
        \t<key>empty</key>
        \t<string/>
        \t<key>quote</key>
        \t<string>&quot;it&apos;s&quot; &#233;&#x1F600;</string>
        \t<key>ratio</key>
        \t<real>0.10000000000000001</real>
        \t<key>zero</key>
        \t<real>-0.0</real>
        \t<key>recent</key>
        \t<array>
        \t\t<dict>
        \t\t\t<key>flag</key>
        \t\t\t<true/>
        \t\t</dict>
        \t</array>
        </dict>
        </plist>
        """
}
