import Foundation

/// Stores an `NSCoding` object (one that does not adopt `NSSecureCoding`) as a keyed archive (`<data>`).
///
/// This is the form SwiftyUserDefaults writes for `NSCoding` types, so those settings read as they are. A class
/// that adopts `NSSecureCoding` gets ``SecureCodingBridge`` instead, which is safer: prefer it.
///
/// Reading is guarded as far as `NSCoding` allows. The archive's root object must be of exactly `Value`'s class
/// (checked in the bytes, before any object is made), and a damaged archive, an unknown class inside it or a
/// failed `init(coder:)` reads as a mismatch (the key's default and a diagnostic), never as a crash. What
/// `NSCoding` cannot guard is the objects *inside* the root: without secure coding, the unarchiver makes
/// whatever class the archive names there. Store only what your own app wrote; for anything that may come
/// from elsewhere, adopt `NSSecureCoding`.
///
/// On Linux, Foundation's unarchiver recurses without end on objects that refer to each other in a cycle, and
/// its archiver names only top-level classes: a cyclic object or a class that is private, nested, local or
/// generic is refused when written, and such an archive reads as a mismatch. So is an object graph nested
/// more than 256 levels deep, and one holding a Foundation class the unarchiver there stops the process on
/// (anything but strings, collections, data, dates, UUIDs, URLs and `NSNull`, with the fields they are read
/// from).
///
/// ## Usage
/// ```swift
/// final class Note: NSObject, NSCoding {
///     var text: String
///     init(text: String) { self.text = text }
///     required init?(coder: NSCoder) {
///         guard let text = coder.decodeObject(forKey: "text") as? String else { return nil }
///         self.text = text
///     }
///     func encode(with coder: NSCoder) { coder.encode(text, forKey: "text") }
/// }
/// extension Note: DefaultsSerializable {}   // uses this bridge
/// ```
public struct KeyedArchiveBridge<Value: NSObject & NSCoding>: DefaultsBridge {
    /// Creates the bridge.
    public init() {}

    /// How many objects deep an archive may nest, root included: 256.
    ///
    /// The unarchiver recurses once per level.
    static var maximumDepth: Int { 256 }

    /// Returns the object's keyed archive, made without secure coding.
    public func serialize(_ value: Value) throws -> PropertyListValue? {
        #if canImport(Darwin)
        .data(try NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: false))
        #else
        let archive = try KeyedArchiveGuard.archive(
            value,
            requiringSecureCoding: false,
            maximumDepth: Self.maximumDepth
        )
        // What could not be read back is not written.
        try ArchivedObjects(BinaryPropertyListReader(archive)).checkReferences(maximumDepth: Self.maximumDepth)
        return .data(archive)
        #endif
    }

    /// Returns the object unarchived from stored data; throws, saying why, if the archive does not hold a `Value`.
    public func deserialize(_ stored: PropertyListValue) throws -> Value? {
        guard case .data(let archive) = stored else { return nil }
        #if !canImport(Darwin)
        try KeyedArchiveGuard.checkReadable(archive, as: Value.self)
        #endif
        let objects = try ArchivedObjects(BinaryPropertyListReader(archive))
        let rootClass = try objects.className(of: objects.fields(of: objects.root))
        guard
            rootClass == NSStringFromClass(Value.self) || NSKeyedUnarchiver.class(forClassName: rootClass) == Value.self
        else {
            throw DefaultsBridgeError("the keyed archive holds \(String(reflecting: rootClass)), not \(Value.self)")
        }
        #if !canImport(Darwin)
        try objects.checkReferences(maximumDepth: Self.maximumDepth)
        #endif
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archive)
        unarchiver.requiresSecureCoding = false
        // An error, not an exception (Apple) or a stopped process (Linux).
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        let object = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
        unarchiver.finishDecoding()
        if let error = unarchiver.error {
            throw DefaultsBridgeError("the keyed archive does not hold a \(Value.self): \(error.localizedDescription)")
        }
        guard let value = object as? Value else {
            throw DefaultsBridgeError("the keyed archive does not hold a \(Value.self)")
        }
        return value
    }
}

extension ArchivedObjects {
    /// Throws if the objects reachable from the root refer to each other in a cycle, or nest deeper than
    /// `maximumDepth`: Foundation's unarchiver on Linux recurses once per level, and without end on a cycle.
    ///
    /// An object's references are the UIDs among its fields' values, and inside arrays there (how collections
    /// list their elements); `$class` names a class description, not an object. Objects referred to twice
    /// without a cycle are fine.
    func checkReferences(maximumDepth: Int) throws {
        var finished = Set<Int>()
        var onPath = Set<Int>()
        // Depth-first, without recursion: each entry is an object and the references still to follow from it.
        var path: [(uid: Int, pending: [Int])] = []
        // The root is the key's own class, already checked; what it holds is not.
        onPath.insert(root)
        path.append((root, try references(of: root)))
        while let last = path.indices.last {
            guard let next = path[last].pending.popLast() else {
                onPath.remove(path[last].uid)
                finished.insert(path[last].uid)
                path.removeLast()
                continue
            }
            if finished.contains(next) { continue }
            if onPath.contains(next) {
                throw DefaultsBridgeError("the keyed archive's objects refer to each other in a cycle")
            }
            guard path.count < maximumDepth else {
                throw DefaultsBridgeError("the keyed archive nests objects more than \(maximumDepth) levels deep")
            }
            onPath.insert(next)
            try checkUnarchivable(next)
            path.append((next, try references(of: next)))
        }
    }

    /// Throws if the object of UID `uid` is of a Foundation class that Foundation's unarchiver on Linux could
    /// stop the process on.
    ///
    /// Measured on Linux: `NSError`, `NSURLQueryItem`, `NSString` and others stop the process when their fields
    /// are missing or of the wrong kind, and `NSTextCheckingResult` and the formatters always. So an archive may
    /// hold Swift classes (module-qualified names, whose `init(coder:)` is their own), and of Foundation's only
    /// the value and collection classes below, with the fields their initializers read.
    private func checkUnarchivable(_ uid: Int) throws {
        guard case .dictionary = try plist.object(at: try object(uid)) else { return }
        let fields = try self.fields(of: uid)
        let name = try className(of: fields)
        if let dot = name.firstIndex(of: "."), name[..<dot] != "Foundation" { return }
        guard let required = Self.foundationFields[name] else {
            throw DefaultsBridgeError(
                "the keyed archive holds an object of class \(String(reflecting: name)), which Foundation on Linux "
                    + "cannot always unarchive without stopping the process"
            )
        }
        for (field, kind) in required {
            guard let value = fields[field], try Self.kind(of: plist.object(at: value)) == kind else {
                throw DefaultsBridgeError("the keyed archive's \(name) has no \(field) \(kind)")
            }
        }
    }

    /// Foundation's classes an archive may hold, and the fields (with their kinds) each must have.
    private static let foundationFields: [String: [(String, String)]] = {
        let list = [("NS.objects", "array")]
        let dictionary = [("NS.keys", "array"), ("NS.objects", "array")]
        return [
            "NSString": [("NS.string", "string")], "NSMutableString": [("NS.string", "string")],
            "NSArray": list, "NSMutableArray": list, "NSSet": list, "NSMutableSet": list,
            "NSDictionary": dictionary, "NSMutableDictionary": dictionary,
            "NSData": [("NS.data", "value")], "NSMutableData": [("NS.data", "value")],
            "NSDate": [("NS.time", "value")], "NSUUID": [("NS.uuidbytes", "value")],
            "NSURL": [("NS.relative", "reference")], "NSNull": [],
        ]
    }()

    private static func kind(of object: BinaryPropertyListReader.Object) -> String {
        switch object {
        case .string: "string"
        case .uid: "reference"
        case .array: "array"
        case .dictionary: "dictionary"
        case .other: "value"
        }
    }

    /// The UIDs the object of UID `uid` refers to; none for a string, number or `$null`.
    private func references(of uid: Int) throws -> [Int] {
        guard case .dictionary = try plist.object(at: try object(uid)) else { return [] }
        var found: [Int] = []
        for (name, value) in try fields(of: uid) where name != "$class" {
            switch try plist.object(at: value) {
            case .uid(let reference):
                found.append(reference)
            case .array(let items):
                for item in items {
                    if case .uid(let reference) = try plist.object(at: item) { found.append(reference) }
                }
            default:
                break
            }
        }
        return found
    }
}
