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
/// let image = SuiteImage.writing(["a": .integer(1)], changes: ["a": .integer(1)], over: nil)   // XML
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
    static func writing(
        _ values: [String: PropertyListValue],
        changes: [String: PropertyListValue?],
        over base: SuiteImage?
    ) -> SuiteImage {
        let onlyReference = holdsOnlyArchiverReference(values)
        switch base {
        case .binary(let image):
            return .binary(image.updating(changes))
        case .xmlEntries(let list):
            // Entries that reads do not see count too: the file is a lone CF$UID only if it holds nothing else.
            let next = list.updating(changes)
            return onlyReference && next.count == 1 ? .binary(BinaryPropertyListImage(values)) : .xmlEntries(next)
        case .xml(let image) where !onlyReference:
            return .xml(image.updating(changes))
        default:
            return onlyReference ? .binary(BinaryPropertyListImage(values)) : .xml(PropertyListXML.Image(values))
        }
    }

    /// What reads find in the file after a write that left `values`: those, unless the file holds two keys
    /// that Swift's `String` takes to be equal, where a write of one spelling leaves the other in the file.
    func values(afterWriting values: [String: PropertyListValue]) -> [String: PropertyListValue] {
        switch self {
        case .binary(let image) where image.hasKeysEqualAsStrings: image.values
        case .xmlEntries(let list): list.values
        default: values
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
