// The library's own file store is Linux's; on Apple platforms values live in UserDefaults (see Package.swift).
#if !TYPED_DEFAULTS_FOUNDATION_STORAGE
import Foundation

/// A suite's file as it was last read or written, in the form it is kept in: XML, as TypedDefaults writes
/// suites, or binary, as another program (macOS, Python's `plistlib`) may have written it.
///
/// A write changes the file in the form it has: a binary file stays binary, so that what only the binary
/// form carries survives every write (see ``BinaryPropertyListImage``). One case goes the other way: a suite
/// left holding only `CF$UID` with a number, which XML readers take for a keyed archiver's reference, is
/// written in binary form, where it is a dictionary to every reader.
///
/// ```swift
/// let image = SuiteImage.writing(["a": .integer(1)], changes: [("a", .integer(1))], holdingSpellings: false, over: nil)
/// ```
enum SuiteImage: Sendable {
    case xml(PropertyListXML.Image)
    /// An XML file that a dictionary of values cannot stand for: two spellings of one key, or a reference.
    case xmlEntries(PropertyListXML.EntryList)
    case binary(BinaryPropertyListImage)

    /// The file's bytes.
    var bytes: [UInt8] {
        switch self {
        case .xml(let image): image.bytes
        case .xmlEntries(let list): list.bytes
        case .binary(let image): image.bytes
        }
    }

    /// The XML image, for reading a later version of the file by what changed.
    var xml: PropertyListXML.Image? {
        if case .xml(let image) = self { image } else { nil }
    }

    /// The file that holds `values`, made from `base` (the file the write read, when its image is at hand) by
    /// `changes`, which turn the base's values into `values`.
    ///
    /// Both name keys as the store does (see ``KeySpelling``): with `holdingSpellings`, `values` may keep a
    /// spelling under a name of its own, which the file gets back as its very bytes.
    static func writing(
        _ values: [String: PropertyListValue],
        changes: [(key: String, value: PropertyListValue?)],
        holdingSpellings: Bool,
        over base: SuiteImage?
    ) -> SuiteImage {
        let onlyReference = holdsOnlyArchiverReference(values)
        let changes = changes.map { (key: KeySpelling.spelling(of: $0.key) ?? $0.key, value: $0.value) }
            .sorted { $0.key < $1.key }
        switch base {
        case .binary(let image):
            return .binary(image.updating(changes))
        case .xmlEntries(let list):
            // Entries that reads do not see count too: the file is a lone CF$UID only if it holds nothing else.
            let next = list.updating(changes)
            return onlyReference && next.count == 1 ? .binary(BinaryPropertyListImage(values)) : .xmlEntries(next)
        case _ where holdingSpellings:
            // No image of the file at hand: written whole, each spelling its own entry.
            let entries = values.map { (key: KeySpelling.spelling(of: $0.key) ?? $0.key, value: $0.value) }
            return .xmlEntries(PropertyListXML.EntryList(entries.sorted { $0.key < $1.key }))
        case .xml(let image) where !onlyReference:
            return .xml(image.updating(Dictionary(changes, uniquingKeysWith: { $1 })))
        default:
            return onlyReference ? .binary(BinaryPropertyListImage(values)) : .xml(PropertyListXML.Image(values))
        }
    }

    /// What reads find in the file after a write that left `values`: those, unless the file holds two keys
    /// that Swift's `String` takes to be equal, or `values` named a spelling (`holdingSpellings`): then the
    /// file's entries, named as ``KeySpelling`` names them.
    func values(
        afterWriting values: [String: PropertyListValue],
        holdingSpellings: Bool
    ) -> [String: PropertyListValue] {
        switch self {
        case .binary(let image) where holdingSpellings || image.holdsSpellings: image.values
        case .xmlEntries(let list): list.values
        default: values
        }
    }

    /// Whether reads of the file find an entry by a name from ``KeySpelling``.
    var holdsSpellings: Bool {
        switch self {
        case .binary(let image): image.holdsSpellings
        case .xmlEntries(let list): list.holdsSpellings
        case .xml: false
        }
    }

    /// Whether `values` is a dictionary an XML reader takes for a keyed archiver's reference.
    private static func holdsOnlyArchiverReference(_ values: [String: PropertyListValue]) -> Bool {
        guard values.count == 1, let value = values["CF$UID"] else { return false }
        switch value {
        case .integer, .unsignedInteger, .double: return true
        default: return false
        }
    }
}
#endif
