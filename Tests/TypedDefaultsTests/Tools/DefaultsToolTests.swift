import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

#if !TYPED_DEFAULTS_FOUNDATION_STORAGE  // needs the Linux file store; see FileStoreOnly.swift

/// The `defaults` tool, run as the built executable in a child process with a config directory of its own.
@Suite("defaults tool")
struct DefaultsToolTests {
    let directory = TemporaryConfigDirectory()

    @discardableResult
    func defaults(_ arguments: String..., input: Data? = nil) throws -> Helper.Result {
        var inputFile: URL?
        if let input {
            inputFile = directory.url.appendingPathComponent(".input-\(UUID().uuidString)")
            try input.write(to: inputFile!)
        }
        defer { inputFile.map { try? FileManager.default.removeItem(at: $0) } }
        return try Helper.run(arguments, configDirectory: directory.url, input: inputFile, program: Helper.tool)
    }

    /// Runs `defaults` and requires success; returns its output without the final newline.
    func succeed(_ arguments: String...) throws -> String {
        let result = try Helper.run(arguments, configDirectory: directory.url, program: Helper.tool)
        try #require(result.status == 0, "defaults \(arguments.joined(separator: " ")): \(result.errors)")
        return String(result.output.dropLast())
    }

    @Test("every type flag writes a value that reads back, with its type")
    func typeFlags() throws {
        let cases: [(arguments: [String], read: String, type: String)] = [
            (["-string", "Ann Lee"], "Ann Lee", "string"),
            (["-int", "-42"], "-42", "integer"),
            (["-integer", "7"], "7", "integer"),
            (["-float", "0.25"], "0.25", "float"),
            (["-bool", "YES"], "1", "boolean"),
            (["-boolean", "false"], "0", "boolean"),
            (["-date", "2026-11-21 08:26:05 +0000"], "2026-11-21 08:26:05 +0000", "date"),
            (["-date", "2026-11-21T08:26:05.25Z"], "2026-11-21 08:26:05 +0000", "date"),
            (["-data", "0a1bff"], "<0a1bff>", "data"),
            (["-array", "a", "-int", "2"], "(\n    a,\n    2\n)", "array"),
            (["-dict", "k", "v", "n", "-int", "1"], "{\n    k = v;\n    n = 1;\n}", "dictionary"),
            (["plain text"], "plain text", "string"),
            (["3"], "3", "string"),
            (["(x, \"y z\")"], "(\n    x,\n    \"y z\"\n)", "array"),
        ]
        for (index, item) in cases.enumerated() {
            _ = try Helper.run(
                ["write", "app", "k\(index)"] + item.arguments,
                configDirectory: directory.url,
                program: Helper.tool
            )
            #expect(try succeed("read", "app", "k\(index)") == item.read, "\(item.arguments)")
            #expect(try succeed("read-type", "app", "k\(index)") == "Type is \(item.type)", "\(item.arguments)")
        }
        // What the tool writes, the library reads, typed.
        let adapter = try DefaultsAdapter(
            suiteName: "app",
            directory: directory.url,
            keyStore: DefaultsKeys(),
            launchArguments: .ignored
        )
        #expect(adapter[key: Key<Int>("k1", default: 0)] == -42)
        #expect(adapter[key: Key<Bool>("k4", default: false)] == true)
        #expect(adapter[key: Key<Data?>("k8")] == Data([0x0A, 0x1B, 0xFF]))
        #expect(adapter[key: Key<Date?>("k6")] == DateBridge().deserialize(.string("2026-11-21T08:26:05Z")))
    }

    @Test("-array-add and -dict-add extend what is stored")
    func adding() throws {
        try defaults("write", "app", "list", "-array", "a")
        try defaults("write", "app", "list", "-array-add", "b", "-int", "3")
        #expect(try succeed("--json", "read", "app", "list") == #"["a","b",3]"#)
        try defaults("write", "app", "map", "-dict", "a", "1")
        try defaults("write", "app", "map", "-dict-add", "b", "2")
        #expect(try succeed("--json", "read", "app", "map") == #"{"a":"1","b":"2"}"#)
        try defaults("write", "app", "new", "-array-add", "x")
        #expect(try succeed("--json", "read", "app", "new") == #"["x"]"#)
        let conflict = try defaults("write", "app", "list", "-dict-add", "k", "v")
        #expect(conflict.status == 2)
        #expect(conflict.errors.contains("not a dictionary"))
    }

    @Test("domains, read, --json, delete, rename and find")
    func commands() throws {
        try defaults("write", "one", "greeting", "hello world")
        try defaults("write", "two", "count", "-int", "2")
        #expect(try succeed("domains") == "one, two")
        #expect(try succeed("--json", "domains") == #"["one","two"]"#)
        #expect(try succeed("read", "one") == "{\n    greeting = \"hello world\";\n}")
        #expect(try succeed("--json", "read") == #"{"one":{"greeting":"hello world"},"two":{"count":2}}"#)
        #expect(try succeed("find", "WORLD") == "Found in domain \"one\": {\n    greeting = \"hello world\";\n}")
        #expect(try succeed("--json", "find", "count") == #"{"two":{"count":2}}"#)

        try defaults("rename", "two", "count", "total")
        #expect(try succeed("--json", "read", "two") == #"{"total":2}"#)
        try defaults("delete", "two", "total")
        #expect(try succeed("--json", "read", "two") == "{}")
        try defaults("write", "two", "a", "1")
        try defaults("delete", "two")
        let gone = try defaults("read", "two")
        #expect(gone.status == 1)
        #expect(gone.errors == "defaults: Domain two does not exist\n")
        #expect(try succeed("domains") == "one")
    }

    @Test("export then import gives back the same domain, through files and standard input and output")
    func exportImport() throws {
        try defaults("write", "source", "name", "Ann")
        try defaults("write", "source", "list", "-array", "-int", "1", "b")
        try defaults("write", "source", "when", "-date", "2026-11-21T08:26:05Z")
        try defaults("write", "source", "blob", "-data", "00ff")
        let file = directory.url.appendingPathComponent("export.plist").path
        try defaults("export", "source", file)
        try defaults("import", "copy", file)
        #expect(try succeed("--json", "read", "copy") == succeed("--json", "read", "source"))

        let exported = try defaults("export", "source", "-")
        #expect(exported.output.hasPrefix("<?xml"))
        try defaults("import", "piped", "-", input: Data(exported.output.utf8))
        #expect(try succeed("export", "piped", "-") == succeed("export", "source", "-"))
        // Import replaces: keys not in the property list go.
        try defaults("write", "copy", "extra", "x")
        try defaults("import", "copy", file)
        #expect(try succeed("--json", "read", "copy") == succeed("--json", "read", "source"))
    }

    @Test("a write and a launch argument of the same text give the same value")
    func sameTextAsLaunchArguments() throws {
        let cases: [(key: String, write: [String], text: String)] = [
            ("count", ["-int", "-42"], "-42"),
            ("huge", ["-int", "18446744073709551615"], "18446744073709551615"),
            ("flag", ["-bool", "yes"], "yes"),
            ("ratio", ["-float", "-0.0"], "-0.0"),
            ("when", ["-date", "2026-11-21 08:26:05 +0000"], "2026-11-21 08:26:05 +0000"),
            ("blob", ["<0a1b>"], "<0a1b>"),
            ("list", ["(a, \"b c\")"], "(a, \"b c\")"),
            ("map", ["{ k = v; }"], "{ k = v; }"),
            ("word", ["3"], "3"),
        ]
        for item in cases {
            let result = try Helper.run(
                ["write", "app", item.key] + item.write,
                configDirectory: directory.url,
                program: Helper.tool
            )
            try #require(result.status == 0, "\(item.write): \(result.errors)")
        }
        let written = try DefaultsAdapter(
            suiteName: "app",
            directory: directory.url,
            keyStore: DefaultsKeys(),
            launchArguments: .ignored
        )
        let overridden = DefaultsAdapter(
            store: InMemoryStore(),
            keyStore: DefaultsKeys(),
            launchArguments: .parsing(cases.flatMap { ["-" + $0.key, $0.text] })
        )
        func same<Value: DefaultsSerializable & Equatable>(_ key: Key<Value>) {
            let fromTool = written[key: key]
            let fromArgument = overridden[key: key]
            #expect(fromTool == fromArgument, "\(key)")
            #expect(fromTool != key.defaultValue, "\(key) was read, not defaulted")
        }
        same(Key<Int>("count", default: 0))
        same(Key<UInt64>("huge", default: 0))
        same(Key<Bool>("flag", default: false))
        same(Key<Double>("ratio", default: 1))
        #expect(written[key: Key<Double>("ratio", default: 1)].sign == .minus)
        #expect(overridden[key: Key<Double>("ratio", default: 1)].sign == .minus)
        same(Key<Date?>("when"))
        same(Key<Data?>("blob"))
        same(Key<[String]>("list", default: []))
        same(Key<[String: String]>("map", default: [:]))
        // Untyped, text is typed the same way too: property-list text is a collection, other text a string.
        for name in ["blob", "list", "map", "word"] { same(Key<PropertyListValue?>(name)) }
    }

    @Test("export writes the bytes of the suite's file: carriage returns, inner U+FEFF, dates, -0.0, huge integers")
    func exportIsTheSuiteFile() throws {
        let library = try DefaultsAdapter(
            suiteName: "library",
            directory: directory.url,
            keyStore: DefaultsKeys(),
            launchArguments: .ignored,
            writePolicy: .immediate
        )
        try library.modifyStoredValues { values in
            values = [
                "returns": .string("a\rb\r\nc"),
                "byteOrderMark": .string("a\u{FEFF}b"),
                "markup": .string("<a & b>"),
                "date": .date(Date(timeIntervalSinceReferenceDate: 785_406_365)),
                "negativeZero": .double(-0.0),
                "tenth": .double(0.1),
                "infinite": .double(-.infinity),
                "huge": .unsignedInteger(.max),
                "lowest": .integer(.min),
                "blob": .data(Data((0..<100).map(UInt8.init))),
                "nested": .array([.dictionary(["empty": .array([]), "none": .dictionary([:])]), .bool(true)]),
            ]
        }
        try library.set(-0.0, for: Key<Double>("typedNegativeZero", default: 0))
        try library.set(Date(timeIntervalSinceReferenceDate: 0.5), for: Key<Date?>("typedDate"))
        let file = try Data(contentsOf: directory.plist("library"))

        let exported = directory.url.appendingPathComponent("library-export.plist")
        _ = try succeed("export", "library", exported.path)
        #expect(try Data(contentsOf: exported) == file)
        let piped = try defaults("export", "library", "-")
        #expect(Data(piped.output.utf8) == file)
        // What Foundation's writer, which the tool used before, writes differently.
        let text = String(decoding: file, as: UTF8.self)
        for written in ["a&#xD;b&#xD;\nc", "a\u{FEFF}b", "<real>-0.0</real>", "<real>0.1</real>"] {
            #expect(text.contains(written), "\(String(reflecting: written))")
        }
        #expect(text.contains("<integer>18446744073709551615</integer>"))
    }

    @Test("watch prints each change that other processes make")
    func watch() throws {
        let watcher = try Helper.start(["watch", "live"], configDirectory: directory.url, program: Helper.tool)
        // The tool says so once its watch is in place.
        #expect(watcher.waitForOutput(containing: "Watching"))
        try defaults("write", "live", "theme", "dark")
        #expect(watcher.waitForOutput(containing: "theme: (none) -> dark"))
        let program = try Helper.run(["exit-call", "live", "theme", "light"], configDirectory: directory.url)
        #expect(program.status == 0)
        #expect(watcher.waitForOutput(containing: "theme: dark -> light"))
        try defaults("delete", "live", "theme")
        #expect(watcher.waitForOutput(containing: "theme: light -> (removed)"))
        watcher.kill()
    }

    @Test("a write against a live program loses nothing, and the program's observers see it")
    func livePrograms() throws {
        let suite = IsolatedSuite(writePolicy: .coalesced(within: .seconds(30)))
        let seen = Recorder<String?>()
        let token = suite.adapter.observe(\.username) { seen.append($0.newValue) }
        suite.adapter.launchCount = 5  // pending in the program, not yet written
        let result = try Helper.run(
            ["write", suite.name, "username", "from-the-tool"],
            configDirectory: suite.directory.url,
            program: Helper.tool
        )
        #expect(result.status == 0)
        #expect(eventually { seen.all == ["from-the-tool"] })
        try suite.adapter.flush()
        let file = try suite.fileContents()
        #expect(file["username"] as? String == "from-the-tool")
        #expect(file["launchCount"] as? Int == 5)
        token.invalidate()
    }

    @Test("bad input: a one-line error naming the problem, a documented status, and the file untouched")
    func badInput() throws {
        try defaults("write", "app", "count", "-int", "1")
        let appFile = directory.plist("app")
        let before = try Data(contentsOf: appFile)
        try Data("garbage".utf8).write(to: directory.plist("broken"))

        let cases: [(arguments: [String], status: Int32, mentions: String)] = [
            (["read", "missing"], 1, "Domain missing does not exist"),
            (["read", "app", "nothing"], 1, "The domain/default pair of (app, nothing) does not exist"),
            (["delete", "app", "nothing"], 1, "does not exist"),
            (["write", "app", "count", "-int", "many"], 2, "\"many\" is not an integer"),
            (["write", "app", "count", "-bool", "maybe"], 2, "is not a Boolean"),
            (["write", "app", "when", "-date", "someday"], 2, "is not a date"),
            (["write", "app", "blob", "-data", "xyz"], 2, "is not hexadecimal data"),
            (["write", "app", "bad", "nul\u{1}"], 2, "cannot be stored"),
            (["import", "app", appFile.path + ".nope"], 1, "cannot read"),
            (["write", "../escape", "k", "v"], 3, "invalid suite name"),
            (["write", "/etc/passwd", "k", "v"], 3, "invalid suite name"),
            (["read", "broken"], 4, "is damaged"),
            (["write", "broken", "k", "v"], 4, "is damaged"),
            (["frobnicate"], 64, "unknown command"),
            (["write", "app"], 64, "usage"),
        ]
        for item in cases {
            let result = try Helper.run(item.arguments, configDirectory: directory.url, program: Helper.tool)
            #expect(result.status == item.status, "\(item.arguments): \(result.errors)")
            #expect(result.errors.hasPrefix("defaults: ") && result.errors.contains(item.mentions), "\(item.arguments)")
            #expect(
                result.errors.split(separator: "\n").count == 1,
                "\(item.arguments): one line, got \(result.errors)"
            )
        }
        #expect(try Data(contentsOf: appFile) == before, "the file is untouched")
        #expect(try Data(contentsOf: directory.plist("broken")) == Data("garbage".utf8))
        #expect(
            !FileManager.default.fileExists(
                atPath: directory.url.deletingLastPathComponent().appendingPathComponent("escape.plist").path
            )
        )
    }

    @Test("a binary property list Foundation would crash on (a set, under any bplist0x header) is refused, not read")
    func crashingBinaryFiles() throws {
        for header in ["bplist00", "bplist01", "bplist07"] {
            var bytes =
                BinaryPropertyList.dictionary([("k", .integer(1)), ("tags", .set([.string("a")]))]).encoded
            bytes.replaceSubrange(0..<8, with: Array(header.utf8))
            try bytes.write(to: directory.plist("hostile"))
            let file = directory.url.appendingPathComponent("hostile-import.plist")
            try bytes.write(to: file)
            for arguments in [["read", "hostile"], ["write", "hostile", "k", "2"], ["import", "app", file.path]] {
                let result = try Helper.run(arguments, configDirectory: directory.url, program: Helper.tool)
                #expect(result.signal == nil, "\(header) \(arguments): ended by signal \(result.signal ?? 0)")
                #expect([2, 4].contains(result.status), "\(header) \(arguments): \(result.errors)")
                #expect(result.errors.hasPrefix("defaults: "), "\(header) \(arguments)")
            }
            #expect(try Data(contentsOf: directory.plist("hostile")) == bytes, "\(header): the file is untouched")
            #expect(!FileManager.default.fileExists(atPath: directory.plist("app").path))
        }
    }

    @Test("-g and -globalDomain are NSGlobalDomain, which the tool refuses with a reason, changing nothing")
    func globalDomain() throws {
        for spelling in [["-g"], ["-globalDomain"], ["NSGlobalDomain"]] {
            for command in [["read"], ["write"] as [String]] {
                let tail = command == ["write"] ? ["AppleLocale", "en_GB"] : []
                let result = try Helper.run(
                    command + spelling + tail,
                    configDirectory: directory.url,
                    program: Helper.tool
                )
                #expect(result.status == 3, "\(command + spelling): \(result.errors)")
                #expect(result.errors.contains("the global domain (NSGlobalDomain, -g, -globalDomain) does not exist"))
                #expect(result.errors.contains("-app <program name>"), "it says what to do instead")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test("-currentHost and -host of this machine change nothing, and say so; -host of another machine is refused")
    func hosts() throws {
        try defaults("write", "app", "name", "Ann")
        let current = try defaults("-currentHost", "read", "app", "name")
        #expect(current.status == 0)
        #expect(current.output == "Ann\n")
        #expect(current.errors.contains("note: -currentHost changes nothing"))
        #expect(current.errors.contains("per user, not per host"))

        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, 255)
        let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let written = try defaults("-host", host, "write", "app", "name", "Bea")
        #expect(written.status == 0, "\(written.errors)")
        #expect(written.errors.contains("note: -host \(host) changes nothing"))
        #expect(try succeed("read", "app", "name") == "Bea")

        let other = try defaults("-host", "another-machine.example", "write", "app", "name", "Cy")
        #expect(other.status == 64)
        #expect(other.errors.contains("another machine's preferences are not reachable"))
        #expect(try succeed("read", "app", "name") == "Bea")
        #expect(try defaults("-host").status == 64)
    }

    @Test("-app names a program's own domain, by its name or a path to it")
    func app() throws {
        try defaults("write", "-app", "editor", "theme", "dark")
        #expect(try succeed("domains") == "editor")
        #expect(try succeed("read", "-app", "/usr/local/bin/editor", "theme") == "dark")
        #expect(try succeed("read-type", "-app", "editor", "theme") == "Type is string")
        try defaults("delete", "-app", "editor")
        #expect(try defaults("read", "-app", "editor").errors.contains("Domain editor does not exist"))
        #expect(try defaults("read", "-app").status == 64)
    }

    @Test("-app with no program's name ('', '.', '..', '/') is refused; nothing is written anywhere")
    func appWithoutName() throws {
        for name in ["", ".", "..", "/", "a/..", "//"] {
            let result = try defaults("write", "-app", name, "theme", "dark")
            #expect(result.status == 3, "\(String(reflecting: name)): \(result.errors)")
            #expect(result.errors.contains("names none"), "\(String(reflecting: name))")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
        let parent = directory.url.deletingLastPathComponent()
        #expect(!FileManager.default.fileExists(atPath: parent.appendingPathComponent(parent.lastPathComponent).path))
    }

    @Test(
        "property-list text nested deeper than a value may be is refused with the depth, never stored as a string",
        arguments: [129, 512, 513, 2_000]
    )
    func deepText(levels: Int) throws {
        let array = String(repeating: "(", count: levels) + "x" + String(repeating: ")", count: levels)
        let dictionary = String(repeating: "{ a = ", count: levels) + "x" + String(repeating: "; }", count: levels)
        for text in [array, dictionary] {
            let result = try defaults("write", "app", "deep", text)
            #expect(result.status == 2, "\(result.errors)")
            #expect(result.errors.contains("nests more than 128 levels deep"), "\(result.errors)")
            let whole = try defaults("write", "app", "{ k = \(text); }")
            #expect(whole.status == 2, "\(whole.errors)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.plist("app").path))
        // 128 levels, the suite's dictionary not counted, is a value.
        try defaults(
            "write",
            "app",
            "deep",
            String(repeating: "(", count: 128) + "x" + String(repeating: ")", count: 128)
        )
        #expect(try succeed("read-type", "app", "deep") == "Type is array")
        // A quoted bracket is text, not nesting.
        try defaults("write", "app", "quoted", "(\"" + String(repeating: "(", count: 600) + "\")")
        #expect(try succeed("read-type", "app", "quoted") == "Type is array")
    }

    @Test("two Unicode spellings of a domain (NFC and NFD) are two domains to every command")
    func domainSpellings() throws {
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        try #require(composed == decomposed && Array(composed.utf8) != Array(decomposed.utf8))
        try defaults("write", composed, "k", "composed")
        try defaults("write", decomposed, "k", "decomposed")
        #expect(try succeed("read", composed, "k") == "composed")
        #expect(try succeed("read", decomposed, "k") == "decomposed")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            .filter { !$0.hasPrefix(".") }
        #expect(
            Set(files.map { Array($0.utf8) }) == [
                Array((composed + ".plist").utf8), Array((decomposed + ".plist").utf8),
            ]
        )
        // In the order of their bytes: "e" and U+0301 before U+00E9.
        #expect(try succeed("--json", "domains").utf8.elementsEqual(#"["\#(decomposed)","\#(composed)"]"#.utf8))
        let all = try succeed("--json", "read")
        #expect(all.contains(#""k":"composed""#) && all.contains(#""k":"decomposed""#), "\(all)")
        let found = try succeed("find", "k").split(separator: "\n").filter { $0.hasPrefix("Found in domain") }
        #expect(found.count == 2, "both domains are found: \(found)")
        try defaults("delete", decomposed)
        #expect(try succeed("read", composed, "k") == "composed")
        #expect(try defaults("read", decomposed).status == 1)
    }

    @Test("write DOMAIN with a dictionary replaces the domain: old-style property-list text or XML")
    func wholeDomain() throws {
        try defaults("write", "app", "old", "x")
        try defaults("write", "app", #"{ a = 1; b = "x y"; list = (p, q); }"#)
        #expect(try succeed("--json", "read", "app") == #"{"a":"1","b":"x y","list":["p","q"]}"#)
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>n</key><integer>3</integer><key>on</key><true/></dict></plist>
            """
        try defaults("write", "app", xml)
        #expect(try succeed("--json", "read", "app") == #"{"n":3,"on":true}"#)
        #expect(try succeed("read-type", "app", "n") == "Type is integer")

        let before = try Data(contentsOf: directory.plist("app"))
        for notADictionary in ["(a, b)", "plain", "{ unterminated"] {
            let result = try defaults("write", "app", notADictionary)
            #expect(result.status == 2, "\(notADictionary): \(result.errors)")
            #expect(result.errors.contains("is not a property-list dictionary"))
        }
        #expect(try Data(contentsOf: directory.plist("app")) == before)
    }

    @Test("delete DOMAIN removes the domain's files; a program that has it open sees its values go")
    func deleteDomain() throws {
        let suite = IsolatedSuite()
        let removed = Recorder<String>()
        let token = suite.adapter.observeStoredValues { changes in
            for change in changes where change.newValue == nil { removed.append(change.key) }
        }
        suite.adapter.username = "ann"
        let tool = { (arguments: [String]) in
            try Helper.run(arguments, configDirectory: suite.directory.url, program: Helper.tool)
        }
        #expect(try tool(["delete", suite.name]).status == 0)
        #expect(eventually { removed.all == ["username"] })
        // Once the program's own background work is done, it has left nothing behind either.
        try #require(suite.adapter.store as? FileStore).finishBackgroundWork()
        let left = try FileManager.default.contentsOfDirectory(atPath: suite.directory.url.path)
        #expect(left.isEmpty, "\(left)")
        #expect(eventually { suite.adapter.username == nil })
        let read = try tool(["read", suite.name])
        #expect(read.status == 1)
        #expect(read.errors == "defaults: Domain \(suite.name) does not exist\n")
        #expect(try tool(["delete", suite.name]).status == 1, "a domain deleted is gone")
        // The program's next write makes the domain anew.
        suite.adapter.launchCount = 2
        #expect(try tool(["read", suite.name, "launchCount"]).output == "2\n")
        token.invalidate()
    }

    @Test("dates and collections print as macOS prints them, empty ones and nested ones included")
    func macOSLayout() throws {
        try defaults("write", "app", "when", "-date", "2026-11-21T08:26:05Z")
        try defaults("write", "app", "emptyMap", "-dict")
        try defaults("write", "app", "emptyList", "-array")
        try defaults("write", "app", "nested", #"{ inner = { }; list = (1, { z = 2; }, ( )); }"#)
        #expect(try succeed("read", "app", "when") == "2026-11-21 08:26:05 +0000")
        try defaults("write", "app", "whole", "-float", "2")
        #expect(try succeed("read", "app", "whole") == "2", "a whole real prints as macOS prints it, without .0")
        #expect(try succeed("read-type", "app", "whole") == "Type is float")
        try defaults("delete", "app", "whole")
        #expect(try succeed("read", "app", "emptyMap") == "{\n}")
        #expect(try succeed("read", "app", "emptyList") == "(\n)")
        let expected = """
            {
                emptyList =     (
                );
                emptyMap =     {
                };
                nested =     {
                    inner =         {
                    };
                    list =         (
                        1,
                                    {
                            z = 2;
                        },
                                    (
                        )
                    );
                };
                when = "2026-11-21 08:26:05 +0000";
            }
            """
        #expect(try succeed("read", "app") == expected)
        // --json keeps ISO 8601, which JSON readers parse.
        #expect(try succeed("--json", "read", "app", "when") == #""2026-11-21T08:26:05Z""#)
    }

    @Test("help prints the usage and the exit statuses")
    func help() throws {
        let text = try succeed("help")
        #expect(text.contains("usage: defaults"))
        #expect(text.contains("64 a usage error"))
    }
}
#endif
