import Foundation
import Testing

@testable import TypedDefaults

/// Whether this build keeps suites in Foundation's `UserDefaults`, as on Apple platforms
/// (`swift test -Xswiftc -DTYPED_DEFAULTS_FOUNDATION_STORAGE` on Linux).
let storesThroughFoundation: Bool = {
    #if TYPED_DEFAULTS_FOUNDATION_STORAGE
    true
    #else
    false
    #endif
}()

/// Why a test is skipped in such a build.
let fileStoreOnlyReason: Comment =
    "needs the Linux file store (its file, lock, watch, exit flush or exact text): this build stores through UserDefaults"

extension Trait where Self == ConditionTrait {
    /// A test of what only the Linux file store does, or of what Foundation on Linux does not (tell other
    /// processes' changes): skipped, with the reason printed, in a build that stores through `UserDefaults`.
    static var needsFileStore: Self { .disabled(if: storesThroughFoundation, fileStoreOnlyReason) }
}

#if TYPED_DEFAULTS_FOUNDATION_STORAGE
/// The suites left out of a build that stores through `UserDefaults` (their code names the file store), each
/// reported as skipped with the reason, so the run says what it did not test.
@Suite("Suites that need the Linux file store")
struct FileStoreOnlySuites {
    @Test(
        .disabled(fileStoreOnlyReason),
        arguments: [
            "defaults tool", "Hostile: file watch", "Hostile: storage", "Safe files", "Durability",
            "Suite names and directories", "Hostile: store seam (file-store cases)",
        ]
    )
    func skipped(_ suite: String) {}
}
#endif

/// A suite file's values as TypedDefaults reads them: Foundation's property-list reader, then
/// `PropertyListValue`; throws for anything but a dictionary of property-list values.
func parsedSuite(_ data: Data) throws -> [String: PropertyListValue] {
    guard case .dictionary(let values)? = PropertyListValue(propertyListData: data) else {
        throw CocoaError(.propertyListReadCorrupt)
    }
    return values
}
