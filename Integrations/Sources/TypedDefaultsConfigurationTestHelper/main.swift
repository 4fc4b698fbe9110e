import Foundation
import TypedDefaults

// Writes to a suite as another process would, for the tests of reads and watches across processes:
//
//     TypedDefaultsConfigurationTestHelper SUITE KEY TYPE VALUE [KEY TYPE VALUE ...]
//
// TYPE is int, double, bool, string, data (hexadecimal), strings (comma-separated) or remove (VALUE ignored).
// The suite is opened by name, so it is in $XDG_CONFIG_HOME, which the tests set to a directory of their own.
// The writes are one batch, which readers see whole, and in the file before the process exits with status 0.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("helper: \(message)\n".utf8))
    exit(2)
}

func value(_ type: String, _ text: String) -> PropertyListValue? {
    switch type {
    case "int":
        guard let number = Int64(text) else { fail("not an int: \(text)") }
        return .integer(number)
    case "double":
        guard let number = Double(text) else { fail("not a double: \(text)") }
        return .double(number)
    case "bool":
        return .bool(text == "true")
    case "string":
        return .string(text)
    case "data":
        guard let data = Data(hex: text) else { fail("not hexadecimal: \(text)") }
        return .data(data)
    case "strings":
        return .array(text.split(separator: ",").map { .string(String($0)) })
    case "remove":
        return nil
    default:
        fail("unknown type \(type)")
    }
}

extension Data {
    init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        self.init(bytes)
    }
}

let arguments = CommandLine.arguments.dropFirst()
guard let suite = arguments.first, arguments.count > 1, (arguments.count - 1).isMultiple(of: 3) else {
    fail("usage: SUITE KEY TYPE VALUE [KEY TYPE VALUE ...]")
}
do {
    let defaults = try DefaultsAdapter(
        suiteName: suite,
        keyStore: DefaultsKeys(),
        launchArguments: .ignored
    )
    let writes = Array(arguments.dropFirst())
    var batch: [String: PropertyListValue?] = [:]
    for index in stride(from: 0, to: writes.count, by: 3) {
        batch[writes[index]] = .some(value(writes[index + 1], writes[index + 2]))
    }
    // One batch: one write, which readers see whole (separate `set`s are separate writes, each seen in turn).
    _ = try defaults.store.apply(DefaultsBatch(writes: batch))
    try defaults.flush()
} catch {
    fail("\(error)")
}
