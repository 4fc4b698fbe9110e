import Foundation

/// Reads the URL in a keyed archive of `NSURL`, the form `UserDefaults.set(_: URL?, forKey:)` stores on Apple
/// platforms (and so what SwiftyUserDefaults' URL keys leave behind there).
///
/// The archive is a binary property list whose `$objects` hold an `NSURL` with a relative string
/// (`NS.relative`) and an optional base (`NS.base`, another `NSURL`). Apple documents that a file URL in the
/// home directory is archived with the home directory abbreviated to `~`, and expanded again on reading; a
/// relative string that starts with `~` is therefore read as a path in the current user's home, whatever its
/// base.
///
/// Nothing is unarchived, and Foundation never parses the bytes: its property-list reader on Linux stops the
/// process on some damaged binary property lists (a flipped byte that turns an object into a set was enough),
/// and its unarchiver on others. The archive is read here instead, one object at a time, every offset and
/// count checked against the bytes, and only strings are taken from it. The same code runs on every platform.
enum URLArchive {
    /// An archived URL takes a few hundred bytes; anything larger than this is refused unparsed.
    static let maximumSize = 1 << 20

    /// How many `NS.base` links a reading follows before it gives up (a cycle never ends otherwise).
    static let maximumBaseDepth = 16

    /// The URL archived in `archive`; throws, saying why, for anything else.
    static func url(from archive: Data) throws -> URL {
        guard archive.count <= maximumSize else {
            throw DefaultsBridgeError("a keyed archive of \(archive.count) bytes is too large for a URL")
        }
        let graph = try ArchivedObjects(BinaryPropertyListReader(archive))
        return try graph.url(at: graph.root, depth: 0)
    }

    /// The URLs of a keyed archive of an `NSArray` of `NSURL` (how SwiftyUserDefaults stores `[URL]`), read
    /// without unarchiving anything.
    static func urls(from archive: Data) throws -> [URL] {
        guard archive.count <= maximumSize else {
            throw DefaultsBridgeError("a keyed archive of \(archive.count) bytes is too large for a list of URLs")
        }
        let graph = try ArchivedObjects(BinaryPropertyListReader(archive))
        let fields = try graph.fields(of: graph.root)
        guard ["NSArray", "NSMutableArray"].contains(try graph.className(of: fields)), let list = fields["NS.objects"]
        else { throw DefaultsBridgeError("the keyed archive does not hold an array") }
        return try graph.plist.array(at: list).map { try graph.url(at: try graph.plist.uid(at: $0), depth: 0) }
    }

    /// The absolute URL of an archived URL's parts.
    static func resolve(relative: String, base: URL?) throws -> URL {
        if let home = homeURL(abbreviated: relative, percentEncoded: true) { return home }
        let resolved: URL?
        if let base {
            resolved = URL(string: relative, relativeTo: base)?.absoluteURL
        } else {
            resolved = URL(string: relative)
        }
        guard let resolved, resolved.scheme != nil else {
            throw DefaultsBridgeError("the keyed archive's URL \(String(reflecting: relative)) is not absolute")
        }
        return resolved
    }

    /// The file URL in the current user's home of a path abbreviated with a tilde (`~` or `~/…`).
    ///
    /// `nil` for any other text; `~user/…` is not expanded, as it names another user's home.
    static func homeURL(abbreviated path: String, percentEncoded: Bool) -> URL? {
        guard path == "~" || path.hasPrefix("~/") else { return nil }
        let rest = path.dropFirst()
        let decoded = percentEncoded ? (rest.removingPercentEncoding ?? String(rest)) : String(rest)
        return URL(fileURLWithPath: NSHomeDirectory() + decoded)
    }
}

/// The objects of a keyed archive (`$objects`, with `$top` naming the root), looked up by UID.
///
/// Also what ``KeyedArchiveBridge`` reads an archive's classes and references with, before any unarchiver runs.
struct ArchivedObjects {
    let plist: BinaryPropertyListReader
    /// The property-list object of each UID.
    let objects: [Int]
    /// The UID of the root object.
    let root: Int

    init(_ plist: BinaryPropertyListReader) throws {
        self.plist = plist
        let top = try plist.dictionary(at: plist.topObject)
        guard let archiver = top["$archiver"], try plist.string(at: archiver) == "NSKeyedArchiver",
            let objects = top["$objects"], let header = top["$top"]
        else {
            throw DefaultsBridgeError("the data is not a keyed archive")
        }
        self.objects = try plist.array(at: objects)
        guard let root = try plist.dictionary(at: header)[NSKeyedArchiveRootObjectKey] else {
            throw DefaultsBridgeError("the keyed archive has no root object")
        }
        self.root = try plist.uid(at: root)
    }

    /// The URL the object of UID `uid` stands for.
    func url(at uid: Int, depth: Int) throws -> URL {
        guard depth < URLArchive.maximumBaseDepth else {
            throw DefaultsBridgeError("the keyed archive's URL has more than \(URLArchive.maximumBaseDepth) bases")
        }
        let fields = try self.fields(of: uid)
        let className = try self.className(of: fields)
        guard className == "NSURL" else {
            throw DefaultsBridgeError("the keyed archive holds \(String(reflecting: className)), not NSURL")
        }
        guard let relative = fields["NS.relative"] else { throw DefaultsBridgeError("the archived URL has no string") }
        let text = try string(of: try plist.uid(at: relative))
        var base: URL?
        if let link = fields["NS.base"] {
            let baseUID = try plist.uid(at: link)
            if try !isNull(baseUID) { base = try url(at: baseUID, depth: depth + 1) }
        }
        return try URLArchive.resolve(relative: text, base: base)
    }

    /// The property-list object that `uid` refers to.
    func object(_ uid: Int) throws -> Int {
        guard objects.indices.contains(uid) else {
            throw DefaultsBridgeError("the keyed archive refers to object \(uid) of \(objects.count)")
        }
        return objects[uid]
    }

    private func isNull(_ uid: Int) throws -> Bool {
        if case .string("$null") = try plist.object(at: try object(uid)) { return true }
        return false
    }

    /// An archived object's fields: each key's property-list object.
    func fields(of uid: Int) throws -> [String: Int] {
        guard case .dictionary = try plist.object(at: try object(uid)) else {
            throw DefaultsBridgeError("the keyed archive's object \(uid) is not an archived object")
        }
        return try plist.dictionary(at: try object(uid))
    }

    func className(of fields: [String: Int]) throws -> String {
        guard let reference = fields["$class"],
            let name = try self.fields(of: try plist.uid(at: reference))["$classname"]
        else {
            throw DefaultsBridgeError("the keyed archive names no class for an object")
        }
        return try plist.string(at: name)
    }

    /// A string, archived inline (what `NSString` does) or as an `NSString`/`NSMutableString` object.
    private func string(of uid: Int) throws -> String {
        switch try plist.object(at: try object(uid)) {
        case .string(let text) where text != "$null":
            return text
        case .dictionary:
            let fields = try self.fields(of: uid)
            if ["NSString", "NSMutableString"].contains(try className(of: fields)), let text = fields["NS.string"] {
                return try plist.string(at: text)
            }
        default:
            break
        }
        throw DefaultsBridgeError("the archived URL's string is not a string")
    }
}
