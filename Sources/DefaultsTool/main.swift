// `defaults` for Linux: read, write, export and watch the settings of programs that use TypedDefaults or
// Foundation's UserDefaults, safely while they run. `defaults help` prints the usage.

import Dispatch
import Foundation
import TypedDefaults

let usage = """
    usage: defaults [--json] [-currentHost | -host name] <command> ...

      domains                              list the domains (suites) in the config directory
      read [domain [key]]                  print every domain, a domain, or one value
      read-type domain key                 print the type of a value
      write domain plist                   replace a domain with a dictionary: '{ a = 1; b = x; }' or XML
      write domain key value               write a value: a plain value is a string, or property-list
                                           text such as (a,b) or {k=v;}; or give a type:
            -string s | -int n | -float x | -bool YES/NO | -date 2026-11-21T08:26:05Z | -data 0a1b
            -array v ... | -array-add v ... | -dict k v ... | -dict-add k v ...
      delete domain [key]                  remove a value, or a whole domain
      rename domain old new                rename a key
      find word                            list the keys and values that contain word
      export domain path|-                 write a domain as an XML property list
      import domain path|-                 replace a domain with a property list
      watch domain [key]                   print changes as they happen, until interrupted

    A domain is a suite name, or `-app name` (a program's own domain: its executable's name). The global
    domain (-g, -globalDomain, NSGlobalDomain) is refused: programs using TypedDefaults never read it.
    Preferences are per user, not per host, on Linux: -currentHost and -host <this machine> change nothing
    (a note says so), and -host <another machine> is refused.

    Domains live in $XDG_CONFIG_HOME/<domain>.plist, or ~/.config/<domain>.plist. Writes take the same lock,
    merge the same way and protect damaged files as TypedDefaults does, so they are safe while programs run,
    and their observers see them. --json prints JSON instead of property-list text.

    Exit status: 0 success; 1 no such domain or key; 2 a value that does not parse as its type; 3 an invalid
    domain name; 4 a damaged, unreadable or unwritable file (left as it is); 64 a usage error.

    """

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// The suite for `domain`, writing immediately, with this tool's own flags kept out of the settings.
func open(_ domain: String) throws(ToolError) -> DefaultsAdapter<DefaultsKeys> {
    if domain.lowercased() == "nsglobaldomain" {
        // macOS programs fall back to the global domain for a key of their own that is not set; TypedDefaults
        // programs on Linux never do, so a value written there would change nothing.
        throw ToolError(
            status: .invalidDomain,
            message: "the global domain (NSGlobalDomain, -g, -globalDomain) does not exist on Linux: programs "
                + "that use TypedDefaults read only their own domain; write to the program's domain instead "
                + "(-app <program name>)"
        )
    }
    let adapter: DefaultsAdapter<DefaultsKeys>
    do {
        adapter = try DefaultsAdapter(
            suiteName: domain,
            keyStore: DefaultsKeys(),
            launchArguments: .ignored,
            writePolicy: .immediate
        )
    } catch {
        throw ToolError(error)
    }
    // Every command leaves the file current: writes a program killed before it rebuilt the file are in the
    // journal, and are folded into the file now (a file that cannot be written is reported by the command).
    _ = adapter.storedValues()
    try? adapter.flush()
    return adapter
}

/// The suite for `domain`, which must exist and be intact.
func existing(_ domain: String) throws(ToolError) -> DefaultsAdapter<DefaultsKeys> {
    let adapter = try open(domain)
    guard let file = adapter.fileURL, FileManager.default.fileExists(atPath: file.path) else {
        throw ToolError(status: .notFound, message: "Domain \(domain) does not exist")
    }
    try intact(adapter)
    return adapter
}

/// Refuses to go on with a damaged or unreadable file: the tool never replaces one.
func intact(_ adapter: DefaultsAdapter<DefaultsKeys>) throws(ToolError) {
    do {
        try adapter.checkHealth()
    } catch {
        throw ToolError(error)
    }
}

func modify(_ adapter: DefaultsAdapter<DefaultsKeys>, _ body: (inout [String: PropertyListValue]) -> Void)
    throws(ToolError)
{
    do {
        try adapter.modifyStoredValues(body)
    } catch {
        throw ToolError(error)
    }
}

func value(_ key: String, in domain: String, of adapter: DefaultsAdapter<DefaultsKeys>) throws(ToolError)
    -> PropertyListValue
{
    guard let value = adapter.storedValues()[key] else {
        throw ToolError(status: .notFound, message: "The domain/default pair of (\(domain), \(key)) does not exist")
    }
    return value
}

func domains() throws(ToolError) -> [String] {
    #if TYPED_DEFAULTS_FOUNDATION_STORAGE
    // Foundation keeps the domains where the system says (cfprefsd on Apple platforms), and lists none.
    throw .usage("`domains` lists the files of TypedDefaults' file store, which this build does not use")
    #else
    let directory: String
    do {
        directory = try ConfigDirectory.resolve()
    } catch {
        throw ToolError(error)
    }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    // Two spellings of one name (NFC and NFD), which `String` orders as equal, in the order of their bytes.
    return names.filter { $0.hasSuffix(".plist") && !$0.hasPrefix(".") }.map { String($0.dropLast(6)) }
        .sorted { $0 < $1 || ($0 == $1 && $0.utf8.lexicographicallyPrecedes($1.utf8)) }
    #endif
}

func print(_ value: PropertyListValue, json: Bool) {
    say(json ? Output.json(value) : Output.text(value))
}

func run(_ arguments: [String], json: Bool) throws(ToolError) {
    guard let command = arguments.first else { throw .usage("a command is missing; see `defaults help`") }
    let operands = Array(arguments.dropFirst())
    func expect(_ counts: ClosedRange<Int>, _ form: String) throws(ToolError) {
        guard counts.contains(operands.count) else { throw .usage("usage: defaults \(command) \(form)") }
    }

    switch command {
    case "help", "-h", "--help":
        FileHandle.standardOutput.write(Data(usage.utf8))

    case "domains":
        try expect(0...0, "")
        let names = try domains()
        say(json ? Output.json(.array(names.map(PropertyListValue.string))) : names.joined(separator: ", "))

    case "read":
        try expect(0...2, "[domain [key]]")
        if operands.isEmpty {
            // A list of pairs, not a dictionary: two spellings of one name (NFC and NFD) are two domains.
            var all: [(String, PropertyListValue)] = []
            for domain in try domains() { all.append((domain, .dictionary(try existing(domain).storedValues()))) }
            say(json ? Output.json(entries: all) : Output.text(entries: all))
        } else if operands.count == 1 {
            print(.dictionary(try existing(operands[0]).storedValues()), json: json)
        } else {
            print(try value(operands[1], in: operands[0], of: existing(operands[0])), json: json)
        }

    case "read-type":
        try expect(2...2, "domain key")
        let type = Output.typeName(try value(operands[1], in: operands[0], of: existing(operands[0])))
        say(json ? Output.json(.string(type)) : "Type is \(type)")

    case "write":
        if operands.count == 2 {
            // `defaults write domain '{ a = 1; }'`: the dictionary becomes the whole domain, as on macOS.
            let values = try wholeDomain(operands[1])
            let adapter = try open(operands[0])
            try intact(adapter)
            try modify(adapter) { $0 = values }
            return
        }
        guard operands.count >= 3 else { throw .usage("usage: defaults write domain key value, or domain plist") }
        let (domain, key) = (operands[0], operands[1])
        var parser = ValueParser(operands[2...])
        let write = try parser.parseWrite()
        let adapter = try open(domain)
        try intact(adapter)
        var conflict: ToolError?
        try modify(adapter) { values in
            switch write {
            case .value(let value):
                values[key] = value
            case .arrayAdd(let items):
                switch values[key] {
                case nil: values[key] = .array(items)
                case .array(let existing)?: values[key] = .array(existing + items)
                case let other?:
                    conflict = ToolError(
                        status: .invalidValue,
                        message: "the key \(String(reflecting: key)) holds \(other.summary), not an array"
                    )
                }
            case .dictionaryAdd(let entries):
                switch values[key] {
                case nil: values[key] = .dictionary(entries)
                case .dictionary(let existing)?: values[key] = .dictionary(existing.merging(entries) { $1 })
                case let other?:
                    conflict = ToolError(
                        status: .invalidValue,
                        message: "the key \(String(reflecting: key)) holds \(other.summary), not a dictionary"
                    )
                }
            }
        }
        if let conflict { throw conflict }

    case "delete":
        try expect(1...2, "domain [key]")
        let adapter = try existing(operands[0])
        if operands.count == 2 {
            _ = try value(operands[1], in: operands[0], of: adapter)
            try modify(adapter) { $0[operands[1]] = nil }
        } else {
            do {
                try adapter.removeSuite()
            } catch {
                throw ToolError(error)
            }
        }

    case "rename":
        try expect(3...3, "domain old new")
        let adapter = try existing(operands[0])
        _ = try value(operands[1], in: operands[0], of: adapter)
        try modify(adapter) { values in values[operands[2]] = values.removeValue(forKey: operands[1]) }

    case "find":
        try expect(1...1, "word")
        let word = operands[0].lowercased()
        // Pairs in the domains' order, not a dictionary: two spellings of one name are two domains.
        var found: [(String, PropertyListValue)] = []
        for domain in try domains() {
            let matches = try existing(domain).storedValues()
                .filter { key, value in
                    key.lowercased().contains(word) || Output.text(value).lowercased().contains(word)
                }
            if !matches.isEmpty { found.append((domain, .dictionary(matches))) }
        }
        if json {
            say(Output.json(entries: found))
        } else {
            for (domain, matches) in found {
                say("Found in domain \(String(reflecting: domain)): " + Output.text(matches, topLevel: false))
            }
            if found.isEmpty { say("Found no key or value containing \(String(reflecting: operands[0]))") }
        }

    case "export":
        try expect(2...2, "domain path|-")
        // The library's own writer: an export is byte for byte what the suite's file holds.
        let data = PropertyListXML.data(try existing(operands[0]).storedValues())
        if operands[1] == "-" {
            FileHandle.standardOutput.write(data)
        } else if !FileManager.default.createFile(atPath: operands[1], contents: data) {
            throw ToolError(status: .fileProblem, message: "cannot write \(operands[1])")
        }

    case "import":
        try expect(2...2, "domain path|-")
        let data: Data
        if operands[1] == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: operands[1]) else {
                throw ToolError(status: .notFound, message: "cannot read \(operands[1])")
            }
            data = contents
        }
        guard case .dictionary(let values)? = PropertyListValue(propertyListData: data) else {
            throw ToolError(
                status: .invalidValue,
                message:
                    "\(operands[1] == "-" ? "standard input" : operands[1]) is not a property list whose root is a dictionary"
            )
        }
        let adapter = try open(operands[0])
        try intact(adapter)
        try modify(adapter) { $0 = values }

    case "watch":
        try expect(1...2, "domain [key]")
        let adapter = try open(operands[0])
        let key = operands.count == 2 ? operands[1] : nil
        _ = adapter.storedValues()
        let token = adapter.observeStoredValues { changes in
            for change in changes where key == nil || change.key == key {
                if json {
                    let old = change.oldValue.map(Output.json) ?? "null"
                    let new = change.newValue.map(Output.json) ?? "null"
                    say("{\"key\":\(Output.json(.string(change.key))),\"old\":\(old),\"new\":\(new)}")
                } else {
                    let old = change.oldValue.map { Output.text($0, topLevel: false) } ?? "(none)"
                    let new = change.newValue.map { Output.text($0, topLevel: false) } ?? "(removed)"
                    say("\(change.key): \(old) -> \(new)")
                }
            }
        }
        FileHandle.standardError.write(
            Data("Watching \(adapter.fileURL?.path ?? operands[0]); interrupt to stop\n".utf8)
        )
        withExtendedLifetime(token) { dispatchMain() }

    default:
        throw .usage("unknown command \(String(reflecting: command)); see `defaults help`")
    }
}

/// The arguments with the domain operand written as macOS allows (`-g`, `-globalDomain`, `-app name`) made a
/// domain name.
func resolvingDomain(_ arguments: [String]) throws(ToolError) -> [String] {
    let takesDomain: Set = ["read", "read-type", "write", "delete", "rename", "export", "import", "watch"]
    guard arguments.count >= 2, takesDomain.contains(arguments[0]) else { return arguments }
    var resolved = arguments
    switch arguments[1] {
    case "-g", "-globalDomain":
        resolved[1] = "NSGlobalDomain"
    case "-app":
        guard arguments.count >= 3 else { throw .usage("-app needs the name of a program") }
        // On Linux a program's own domain is its executable's file name (see Docs/LinuxNotes.md); a path to
        // it names the same program.
        // The last part of the path as written: `URL(fileURLWithPath:)` would make `''` and `.` the current
        // directory and `..` its parent, whose names are no program's.
        guard let program = arguments[2].split(separator: "/").last.map(String.init),
            program != ".", program != ".."
        else {
            throw ToolError(
                status: .invalidDomain,
                message: "-app needs a program's name or a path to it; \(String(reflecting: arguments[2])) names none"
            )
        }
        resolved.replaceSubrange(1...2, with: [program])
    default:
        break
    }
    return resolved
}

/// `defaults write domain plist`'s dictionary: old-style property-list text (`{ a = 1; }`) or XML.
func wholeDomain(_ text: String) throws(ToolError) -> [String: PropertyListValue] {
    try ValueParser.checkNesting(text)
    if case .dictionary(let values) = PropertyListValue.plain(text) { return values }
    if case .dictionary(let values)? = PropertyListValue(propertyListData: Data(text.utf8)) { return values }
    throw ToolError(
        status: .invalidValue,
        message: "\(String(reflecting: text)) is not a property-list dictionary such as '{ a = 1; b = \"x y\"; }'"
    )
}

/// This machine's name, as `-host` may give it (with or without its domain).
func hostNames() -> Set<String> {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return ["localhost"] }
    let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return [name, String(name.prefix { $0 != "." }), "localhost"]
}

/// Takes out `--json`, and `-currentHost` / `-host name` before the command; returns whether `--json` was there.
func globalOptions(_ arguments: inout [String]) throws(ToolError) -> Bool {
    let json = arguments.contains("--json")
    arguments.removeAll { $0 == "--json" }
    // Linux keeps preferences per user only: this machine's "by-host" preferences are the user's own, and
    // another machine's are nowhere to be read.
    let note = "preferences are per user, not per host, on Linux; using the domain itself"
    while let first = arguments.first, first == "-currentHost" || first == "-host" {
        if first == "-host" {
            guard arguments.count >= 2 else { throw .usage("-host needs a host name") }
            let host = arguments[1]
            guard hostNames().contains(host) else {
                throw .usage(
                    "-host \(host): another machine's preferences are not reachable from here (Linux keeps no "
                        + "per-host preferences); run defaults on that machine"
                )
            }
            arguments.removeFirst(2)
            FileHandle.standardError.write(Data("defaults: note: -host \(host) changes nothing: \(note)\n".utf8))
        } else {
            arguments.removeFirst()
            FileHandle.standardError.write(Data("defaults: note: -currentHost changes nothing: \(note)\n".utf8))
        }
    }
    return json
}

var arguments = Array(CommandLine.arguments.dropFirst())
do {
    let json = try globalOptions(&arguments)
    arguments = try resolvingDomain(arguments)
    // A command that fails says so in one line of its own; only `watch`, which runs on, passes diagnostics on.
    if arguments.first != "watch" { DefaultsDiagnostics.setHandler { _ in } }
    try run(arguments, json: json)
} catch {
    FileHandle.standardError.write(Data("defaults: \(error.message)\n".utf8))
    exit(error.status.rawValue)
}
