import Foundation
import TypedDefaults

/// A Codable value that nests without end, as stored JSON another program wrote may claim to.
private struct Node: Codable {
    var name: String?
    var children: [Node]?
    var values: [String: Double]?
}

/// One input, two checks.
///
/// Every parse that stored bytes can reach (the library's XML and binary readers, and
/// Foundation's for what those leave, old-style text and other XML; JSON text, as launch arguments and the
/// `defaults` tool read it; a stored Codable value's JSON; a suite's journal) must return or refuse, never crash
/// or hang; and
/// whenever the library's XML reader returns a value, Foundation's reader must return the very same value (bit
/// for bit). A crash, a hang (libFuzzer's -timeout) or a disagreement is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    _ = PropertyListValue(propertyListData: data)
    _ = try? CodableBridge<Node>().deserialize(.data(data))
    let text = String(decoding: data, as: UTF8.self)
    _ = PropertyListValue(jsonText: text)
    _ = PropertyListValue.firstReading(ofText: text) { $0 }
    #if !TYPED_DEFAULTS_FOUNDATION_STORAGE
    // A suite's journal, which any program that can write the lock file can fill.
    _ = SuiteJournal.read(Array(data)[...], salt: 0, allWritten: true)
    #endif
    guard let own = PropertyListXMLReader.value(from: data) else { return 0 }
    let object = try? PropertyListSerialization.propertyList(from: data, format: nil)
    let foundation = object.flatMap(PropertyListValue.init(foundationObject:))
    guard let foundation, own.isIdentical(to: foundation) else {
        print("reader: \(own)\nFoundation: \(foundation.map { "\($0)" } ?? "refused")")
        print(String(decoding: data, as: UTF8.self))
        fatalError("the library's reader and Foundation's disagree")
    }
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// SwiftPM links an executable's entry point under this name, in place of libFuzzer's `main`; libFuzzer's
/// driver then runs as its `main` would.
@_cdecl("PropertyListReaderFuzz_main")
public func fuzzMain(
    _ argc: CInt,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> CInt {
    var count = argc
    var arguments = argv
    return runDriver(&count, &arguments, testOneInput)
}
