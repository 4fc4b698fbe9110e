#if !canImport(Darwin)
import Foundation

// swift-corelibs-foundation stops the process (fatalError, so no error to catch) where Apple's Foundation
// throws or fails gracefully. Measured on Linux with Swift 6.3:
//
// - NSKeyedArchiver names every class of every object, and its superclasses, with NSStringFromClass, which stops
//   the process unless `String(reflecting:)` of the class is exactly `Module.Name`: a private or fileprivate
//   class ("Module.(unknown context at $…).Name"), a nested, local or generic class, or a subclass of one.
// - It stops the process on an object that does not adopt NSSecureCoding (a Swift struct, an NSCoding-only
//   class) in an archive that requires secure coding, and on one that does not adopt NSCoding in any archive.
// - It stops the process hashing an NSDecimalNumber (before any delegate sees it).
// - NSKeyedUnarchiver stops the process when an archive's object is of a class the caller did not allow.
// - NSKeyedUnarchiver stops the process on any decoding error (an unknown class, say) unless its
//   `decodingFailurePolicy` is set to `.setErrorAndReturn`: it starts as `.raiseException` even after
//   `init(forReadingFrom:)`, which on Apple platforms sets `.setErrorAndReturn`.
// - NSKeyedUnarchiver recurses without end on an archive whose objects refer to each other in a cycle, since it
//   remembers an object only once its `init(coder:)` has returned: the process dies of a stack overflow.
// - NSKeyedArchiver recurses once per level of objects: a chain of some 20,000 overflows an 8 MB stack.
//
// So on Linux the bridge checks what it can before Foundation gets there. Apple platforms are left as they are.

enum KeyedArchiveGuard {
    /// What ``namingProblem(_:)`` found for each class (`nil` for none), so that each class is named once per
    /// process: naming takes microseconds, and classes live as long as the process.
    private static let namingProblems = Locked<[ObjectIdentifier: String?]>([:])

    /// Why the archiver could not name `type` or one of its superclasses, or `nil` if it can.
    static func namingProblem(_ type: AnyClass) -> String? {
        let key = ObjectIdentifier(type)
        if let known = namingProblems.withLock({ $0[key] }) { return known }
        let found = findNamingProblem(type)
        namingProblems.withLock { $0[key] = .some(found) }
        return found
    }

    /// Why the archiver would stop the process on `object`, or `nil` if it will not.
    ///
    /// `secure` says whether the archive requires secure coding; without it, an object need only adopt NSCoding.
    static func archivingProblem(_ object: Any, secure: Bool = true) -> String? {
        // What the archiver itself sees: Swift values bridged to their Foundation classes.
        let bridged = object as AnyObject
        let objectClass: AnyClass = type(of: bridged)
        if secure {
            guard let type = objectClass as? NSSecureCoding.Type, type.supportsSecureCoding else {
                return "\(shortName(type(of: object))) does not adopt NSSecureCoding, which a secure archive requires"
            }
        } else if !(objectClass is NSCoding.Type) {
            return "\(shortName(type(of: object))) does not adopt NSCoding, which a keyed archive requires"
        }
        if isSubclass(objectClass, of: NSDecimalNumber.self) {
            return "NSDecimalNumber cannot be archived on Linux (Foundation stops the process hashing it)"
        }
        if let problem = namingProblem(objectClass) { return problem }
        // The object chooses the class it is archived as.
        guard let named = (bridged as? NSObject)?.classForKeyedArchiver, named != objectClass else { return nil }
        return namingProblem(named)
    }

    private static func findNamingProblem(_ type: AnyClass) -> String? {
        var current: AnyClass? = type
        while let checked = current {
            if String(reflecting: checked).split(separator: ".").count != 2 {
                let what = checked == type ? "" : ", a superclass of \(shortName(type)),"
                return "\(shortName(checked))\(what) is not a top-level class, and Foundation on Linux archives "
                    + "only top-level classes (not private, nested, local or generic ones)"
            }
            current = _getSuperclass(checked)
        }
        return nil
    }

    /// The object's keyed archive, or an error if some object in it could not be archived.
    ///
    /// The delegate sees every object before the archiver names its class (the root, the objects the root
    /// encodes, the elements of arrays and dictionaries) and swaps a refused one for a placeholder, so that
    /// archiving runs to its end; the archive is then thrown away and the first refusal reported.
    ///
    /// With `maximumDepth`, an object nested deeper than that (root included) is refused too: the archiver
    /// recurses once per level, so a graph thousands of objects deep would otherwise overflow the stack before
    /// any check of the finished archive.
    static func archive(
        _ root: NSObject,
        requiringSecureCoding secure: Bool = true,
        maximumDepth: Int? = nil
    ) throws -> Data {
        if let problem = archivingProblem(root, secure: secure) { throw DefaultsBridgeError(problem) }
        let archiver = NSKeyedArchiver(requiringSecureCoding: secure)
        let delegate = RefusingDelegate(secure: secure, maximumDepth: maximumDepth)
        archiver.delegate = delegate
        archiver.encode(root, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        if let refusal = delegate.refusal {
            throw DefaultsBridgeError("an object it encodes cannot be archived: \(refusal)")
        }
        if let error = archiver.error { throw error }
        return archiver.encodedData
    }

    /// Throws for an archive Foundation's unarchiver on Linux would stop the process on before reading any
    /// object: one of a class it cannot name, or a damaged binary property list.
    static func checkReadable(_ archive: Data, as type: AnyClass) throws {
        if let problem = namingProblem(type) {
            throw DefaultsBridgeError("\(type) cannot be unarchived on Linux: \(problem)")
        }
        if let crash = BinaryPropertyListReader.foundationCrash(on: archive) { throw DefaultsBridgeError(crash) }
    }

    /// The last archive found to hold the expected class, per class: a read of an unchanged value (every read
    /// of a key unarchives again) does not parse the archive a second time.
    private static let checkedArchives = Locked<[ObjectIdentifier: Data]>([:])

    /// Throws if the archive's root object is of a class that is not `expected` (or a subclass), which the
    /// unarchiver would stop the process on; archives it cannot make sense of are left to the unarchiver.
    static func checkRootClass(of archive: Data, expected: AnyClass) throws {
        let key = ObjectIdentifier(expected)
        if let checked = checkedArchives.withLock({ $0[key] }), checked == archive { return }
        guard let objects = try? ArchivedObjects(BinaryPropertyListReader(archive)),
            let className = try? objects.className(of: objects.fields(of: objects.root))
        else { return }
        // The usual case, without looking the name up.
        if NSKeyedUnarchiver.class(forClassName: className) == nil && className == String(reflecting: expected) {
            checkedArchives.withLock { $0[key] = archive }
            return
        }
        guard let archived = NSKeyedUnarchiver.class(forClassName: className) ?? NSClassFromString(className) else {
            return
        }
        guard isSubclass(archived, of: expected) else {
            throw DefaultsBridgeError("the keyed archive holds \(shortName(archived)), not \(shortName(expected))")
        }
        checkedArchives.withLock { $0[key] = archive }
    }

    private static func isSubclass(_ type: AnyClass, of expected: AnyClass) -> Bool {
        var current: AnyClass? = type
        while let checked = current {
            if checked == expected { return true }
            current = _getSuperclass(checked)
        }
        return false
    }

    private static func shortName(_ type: Any.Type) -> String {
        let name = String(reflecting: type)
        return name.count > 120 ? String(name.prefix(120)) + "…" : name
    }
}

/// Swaps objects the archiver would stop the process on, or that nest too deep, for a placeholder, and
/// remembers the first.
private final class RefusingDelegate: NSObject, NSKeyedArchiverDelegate {
    private let secure: Bool
    private let maximumDepth: Int?
    /// The objects being encoded, outermost first.
    ///
    /// The archiver asks about an object once, before its `encode(with:)` runs, and reports each time it has
    /// encoded one, so an object leaves when reported.
    private var encoding: [ObjectIdentifier] = []
    private(set) var refusal: String?

    init(secure: Bool, maximumDepth: Int?) {
        self.secure = secure
        self.maximumDepth = maximumDepth
    }

    func archiver(_ archiver: NSKeyedArchiver, willEncode object: Any) -> Any? {
        var problem = KeyedArchiveGuard.archivingProblem(object, secure: secure)
        if problem == nil, let maximumDepth, type(of: object) is AnyClass {
            if encoding.count < maximumDepth {
                encoding.append(ObjectIdentifier(object as AnyObject))
            } else {
                problem = "the keyed archive nests objects more than \(maximumDepth) levels deep"
            }
        }
        guard let problem else { return object }
        if refusal == nil { refusal = problem }
        // Not nil: the archiver stops the process on a delegate's nil.
        return NSString(string: "refused")
    }

    func archiver(_ archiver: NSKeyedArchiver, didEncode object: Any?) {
        guard let object, type(of: object) is AnyClass else { return }
        // Also drops objects above it that were never reported (a conditional object, not encoded after all).
        if let index = encoding.lastIndex(of: ObjectIdentifier(object as AnyObject)) {
            encoding.removeSubrange(index...)
        }
    }

    // Foundation on Linux has no optional protocol requirements.
    func archiver(_ archiver: NSKeyedArchiver, willReplace object: Any?, withObject newObject: Any?) {}
    func archiverWillFinish(_ archiver: NSKeyedArchiver) {}
    func archiverDidFinish(_ archiver: NSKeyedArchiver) {}
}
#endif
