// The library's own file store is Linux's; on Apple platforms values live in UserDefaults (see Package.swift).
#if !TYPED_DEFAULTS_FOUNDATION_STORAGE
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif
import Foundation

/// One suite's property-list file: the only code in TypedDefaults that touches the file system.
///
/// Foundation rewrites a suite's file in place (truncate, then write), so a crash, a `kill -9` or a full disk
/// in the middle destroys it, and it replaces a file it cannot parse with an empty one. This type writes a
/// temporary file, syncs it, renames it over the suite's file and syncs the directory, so the file on disk
/// is always either the old version or the new one. Writers take an exclusive `flock` on a lock file beside
/// it (`.<suite>.plist.lock`), so writers in several processes merge instead of overwriting each other.
/// Readers need no lock: a rename never exposes a half-written file. A copy of the last version written
/// (`.<suite>.plist.backup`) lets a suite recover when another program tears the file.
struct SuiteFile: Sendable {
    /// What identifies one version of the file: a rename makes a new inode, an in-place rewrite a new size or
    /// modification time.
    struct Version: Equatable, Sendable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: timespec
        /// The inode's change time, which no program can set back (a modification time can be).
        var changed: timespec

        static func == (lhs: Version, rhs: Version) -> Bool {
            lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size
                && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
                && lhs.changed.tv_sec == rhs.changed.tv_sec && lhs.changed.tv_nsec == rhs.changed.tv_nsec
        }
    }

    /// What the file holds; with the file's image when it was read by what changed since an earlier image.
    enum Contents: Sendable {
        case missing
        case values([String: PropertyListValue], Version, image: SuiteImage? = nil)
        case damaged(Data, Version, reason: String)
    }

    /// An earlier version of the file, as an image and the values it holds, to read a later version by what
    /// changed.
    typealias Basis = (image: PropertyListXML.Image, values: [String: PropertyListValue])

    let path: String
    let directory: String
    let fileName: String
    static let temporaryFileSerial = Locked(0)

    init(directory: String, suiteName: String) {
        self.directory = directory
        self.fileName = suiteName + ".plist"
        self.path = directory + "/" + fileName
    }

    /// The lock file, which holds the journal too (see ``SuiteJournal``).
    var lockPath: String { directory + "/" + lockFileName }
    var lockFileName: String { "." + fileName + ".lock" }
    var backupPath: String { directory + "/." + fileName + ".backup" }

    // MARK: Reading

    /// The current version, without reading the file; `nil` when there is no file.
    func currentVersion() throws(DefaultsError) -> Version? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw unreadable(errno)
        }
        try checkRegularFile(info, at: path)
        return Version(info)
    }

    /// Reads and parses the file.
    ///
    /// A symbolic link is followed for reading (a dotfile manager may link the file); anything but a regular
    /// file at the end of it is refused.
    ///
    /// With a `basis`, only the entries whose bytes differ from it are parsed, when that can be done.
    func read(basis: Basis? = nil) throws(DefaultsError) -> Contents {
        guard let descriptor = try openRegularFile(path, O_RDONLY, followingLinks: true) else { return .missing }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw unreadable(errno) }
        let data = try readAll(descriptor, sizeHint: Int(info.st_size), path: path)
        if let basis,
            let (values, image) = data.withUnsafeBytes({ bytes in
                basis.image.reading(bytes.bindMemory(to: UInt8.self), values: basis.values)
            })
        {
            return .values(values, Version(info), image: .xml(image))
        }
        switch Self.parse(data) {
        case .success(let parsed): return .values(parsed.values, Version(info), image: parsed.image)
        case .failure(let problem): return .damaged(data, Version(info), reason: problem.reason)
        }
    }

    /// How long a file that does not parse must have been left alone before it is taken to be damaged rather
    /// than caught in the middle of a rewrite (Foundation rewrites in place, so readers can see a part).
    static let settleTime: Duration = .milliseconds(200)

    /// Reads the file; one that does not parse but changed less than ``settleTime`` ago is read again once
    /// it has been left alone that long (for at most a second, in case it never is).
    func readSettled(basis: Basis? = nil) throws(DefaultsError) -> Contents {
        var contents = try read(basis: basis)
        var waited: Duration = .zero
        while case .damaged(_, let version, _) = contents, waited < .seconds(1) {
            // A modification time in the future (clock skew, a file copied with its times) counts as now.
            let age = max(version.age, .zero)
            guard age < Self.settleTime else { break }
            let pause = min(max(Self.settleTime - age, .milliseconds(10)), Self.settleTime)
            Backoff.pause(for: pause)
            waited += pause
            contents = try read(basis: basis)
        }
        return contents
    }

    /// The values of the last version a TypedDefaults writer wrote, with when the copy was made, if that
    /// copy is intact.
    func readBackup() -> (values: [String: PropertyListValue], made: timespec)? {
        guard let descriptor = try? openRegularFile(backupPath, O_RDONLY, followingLinks: false) else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0,
            let data = try? readAll(descriptor, sizeHint: Int(info.st_size), path: backupPath),
            let values = try? Self.parse(data).get().values
        else { return nil }
        return (values, info.modificationTime)
    }

    struct ParseProblem: Error {
        var reason: String
    }

    /// The values `data` holds; with its image when that is needed to write the file back without loss.
    ///
    /// A binary property list is read by TypedDefaults' own reader into an image that every later write of
    /// the suite changes: Foundation's reader would merge keys that Swift's `String` takes to be equal, and
    /// TypedDefaults could not hold a null, a UID or a number key that Foundation reads in a dictionary.
    static func parse(
        _ data: Data
    ) -> Result<(values: [String: PropertyListValue], image: SuiteImage?), ParseProblem> {
        guard !data.isEmpty else { return .failure(ParseProblem(reason: "the file is empty")) }
        if data.starts(with: Array("bplist00".utf8)), BinaryPropertyListReader.foundationCrash(on: data) == nil {
            guard let reader = try? BinaryPropertyListReader(data),
                let root = try? reader.tree(maximumNesting: PropertyListXMLReader.maximumNesting)
            else {
                return .failure(ParseProblem(reason: "it is a damaged binary property list"))
            }
            guard let image = BinaryPropertyListImage(root, bytes: [UInt8](data)) else {
                return .failure(ParseProblem(reason: "its root is not a dictionary"))
            }
            return .success((image.values, .binary(image)))
        }
        // Foundation's reader, where TypedDefaults' own XML reader leaves the file, keeps one of two keys that
        // Swift's `String` takes to be equal, and reads a dictionary holding only CF$UID as a UID, which no
        // value holds: such a file is read entry by entry, so that a write keeps all of it.
        let read: PropertyListValue?
        if data.first == UInt8(ascii: "<"), let value = PropertyListXMLReader.value(from: data) {
            read = value
        } else if data.first == UInt8(ascii: "<"), let list = PropertyListXML.EntryList(reading: data) {
            return .success((list.values, .xmlEntries(list)))
        } else {
            read = PropertyListValue(propertyListData: data)
        }
        guard let root = read else {
            return .failure(ParseProblem(reason: "it is not a property list (truncated, or another format)"))
        }
        guard case .dictionary(let values) = root else {
            return .failure(ParseProblem(reason: "its root is not a dictionary with string keys"))
        }
        return .success((values, nil))
    }
}

extension SuiteFile.Version {
    /// How long ago the file was last modified, by the wall clock file times are kept in.
    var age: Duration {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nanoseconds =
            (Int64(now.tv_sec) - Int64(modified.tv_sec)) * 1_000_000_000
            + (Int64(now.tv_nsec) - Int64(modified.tv_nsec))
        return .nanoseconds(nanoseconds)
    }

    fileprivate init(_ info: stat) {
        self.init(
            device: UInt64(info.st_dev),
            inode: UInt64(info.st_ino),
            size: Int64(info.st_size),
            modified: info.modificationTime,
            changed: info.changeTime
        )
    }
}

extension stat {
    fileprivate var modificationTime: timespec {
        st_mtim
    }

    fileprivate var changeTime: timespec {
        st_ctim
    }
}
#endif
