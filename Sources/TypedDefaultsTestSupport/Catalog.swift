import Foundation
import TypedDefaults

extension TypeMatrix {
    /// Every supported type, with the values that have tripped Foundation on Linux up: extreme integers,
    /// `-0.0`, NaN and infinities, sub-second dates, URLs with query and fragment, decimals with fractions.
    public static let catalog: [MatrixEntry] = {
        var all: [MatrixEntry] = []
        all += entries(String.self, fallback: "fallback") {
            ["", "plain", "héllo wörld 🙂", "<tag attr=\"x\"> & 'quote'", "tab\tnew\nline\r end", "  spaced  "]
        }
        all += entries(Bool.self, fallback: false) { [true] }
        all += entries(Bool.self, named: "BoolFalse", fallback: true) { [false] }
        all += entries(Int.self, fallback: 7) { [0, 42, -42, .max, .min] }
        all += entries(Int8.self, fallback: 7) { [.min, .max, -1] }
        all += entries(Int16.self, fallback: 7) { [.min, .max] }
        all += entries(Int32.self, fallback: 7) { [.min, .max] }
        all += entries(Int64.self, fallback: 7) { [.min, .max, 1 << 40] }
        all += entries(UInt.self, fallback: 7) { [0, .max] }
        all += entries(UInt8.self, fallback: 7) { [0, .max] }
        all += entries(UInt16.self, fallback: 7) { [.max] }
        all += entries(UInt32.self, fallback: 7) { [.max] }
        all += entries(UInt64.self, fallback: 7) { [0, UInt64(Int64.max), UInt64(Int64.max) + 1, .max] }
        all += entries(Double.self, fallback: 7) {
            [
                0.1, -2.5, .pi, -0.0, 0.0, .infinity, -.infinity, .nan, .leastNonzeroMagnitude,
                .greatestFiniteMagnitude, 1e20,
            ]
        }
        all += entries(Float.self, fallback: 7) {
            [3.14, -0.0, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
        }
        all += entries(CGFloat.self, fallback: 7) { [1.5, -0.0, .pi] }
        all += entries(Data.self, fallback: Data([9])) { [Data(), Data([0, 1, 2, 0xFF])] }
        all += entries(Date.self, fallback: Date(timeIntervalSinceReferenceDate: 7)) {
            [
                Date(timeIntervalSinceReferenceDate: 816_942_874.364_757_4),
                Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_789),
                Date(timeIntervalSinceReferenceDate: -0.5),
                Date(timeIntervalSinceReferenceDate: 1e-7),
                Date(timeIntervalSince1970: 0),
                .distantPast,
                .distantFuture,
            ]
        }
        all += entries(URL.self, fallback: URL(string: "https://fallback.example")!) {
            [
                URL(string: "https://user@example.com:8443/a/b%20c?q=1&r=two#frag")!,
                URL(fileURLWithPath: "/tmp/typed-defaults/does not exist.txt"),
                URL(string: "mailto:ann@example.com")!,
            ]
        }
        all += entries(UUID.self, fallback: UUID(uuidString: "00000000-0000-0000-0000-000000000007")!) {
            [UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!]
        }
        all += entries(Decimal.self, fallback: 7) {
            [
                Decimal(string: "1.1")!, Decimal(string: "0.5")!, Decimal(string: "-2.75")!,
                Decimal(string: "123456789012345678901234567890")!,
            ]
        }
        all += entries(Theme.self, fallback: Theme.system) { [Theme.dark, .light] }
        all += entries(Priority.self, fallback: Priority.low) { [Priority.high, .urgent] }
        all += entries(Profile.self, fallback: Profile(name: "", tags: [], joined: .distantPast)) {
            [
                Profile(
                    name: "Ann",
                    tags: ["a", "b"],
                    joined: Date(timeIntervalSinceReferenceDate: 816_942_874.364_757_4)
                )
            ]
        }
        all += entries(Frog.self, fallback: Frog(name: "fallback")) { [Frog(name: "Kermit"), Frog(name: "")] }
        all += entries(Bookmark.self, fallback: Bookmark(title: "fallback", page: 0)) {
            [Bookmark(title: "Chapter 1", page: 12)]
        }
        all.append(setEntry(String.self) { ["a", "b", "c"] })
        all.append(setEntry(Int.self) { [1, -2, .max] })
        all.append(setEntry(UUID.self) { [UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!] })
        all.append(entry("IntKeyedDictionary", default: [Int: String]()) { [1: "one", -2: "minus two"] })
        all.append(entry("Data.oneMegabyte", default: Data()) { Data((0..<1_048_576).map { UInt8($0 % 251) }) })
        return all
    }()
}
