import Foundation

/// Arrays stored whole, as one `<data>`, the way SwiftyUserDefaults stores them: an array of `Codable` values
/// as one JSON document, an array of URLs as one keyed archive of `NSURL`s.
///
/// ``ArrayBridge`` reads them, so settings that library stored read as they are; it writes arrays element by
/// element, as every other library and Foundation read them. An array of other archived objects stored whole
/// is not read (see Docs/MigratingFromSwiftyUserDefaults.md for the one-time conversion).
enum WholeArrayForms {
    /// The elements of an array stored whole, or `nil` when `Element`'s arrays have no such form here.
    static func elements<Element>(of whole: Data, as element: Element.Type) throws -> [Element]? {
        if Element.self == URL.self { return try URLArchive.urls(from: whole) as? [Element] }
        guard let codable = [Element].self as? any Codable.Type else { return nil }
        return try decodeJSON(whole, as: codable) as? [Element]
    }

    /// Decodes JSON with ``CodableBridge``'s limits (size, nesting) and diagnostics.
    private static func decodeJSON<Value: Codable>(_ whole: Data, as type: Value.Type) throws -> Value? {
        try CodableBridge<Value>().deserialize(.data(whole))
    }
}
