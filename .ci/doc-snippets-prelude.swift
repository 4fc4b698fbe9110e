// What the documentation's code blocks call without declaring it: stand-ins for the reader's own code (a view,
// a player, a logger, a connection), compiled with every document's blocks by .ci/doc-snippets. No key and no
// type of TypedDefaults' belongs here: a block that uses a key declares it, as a reader must.
// The types are named Placeholder… so that they never hide a real one a document imports (swift-log's Logger).
import Foundation

/// The reader's own connection code.
func connect(to host: String, port: Int) {}

/// The reader's logger: swift-log's `Logger`, or any.
struct PlaceholderLogger: Sendable {
    func info(_ message: String) {}
    func warning(_ message: String) {}
    func error(_ message: String) {}
}
let logger = PlaceholderLogger()

/// The reader's own types, which the migration guides name in their prose.
enum Mood: String, Codable { case wild, calm }

final class Palette: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let name: String

    init(name: String) { self.name = name }

    func encode(with coder: NSCoder) { coder.encode(name as NSString, forKey: "name") }

    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name") else { return nil }
        self.name = name as String
    }
}
/// The reader's own objects: a view to redraw, a player, an encoder.
final class PlaceholderView: Sendable {
    func setNeedsRedraw() {}
    func setNeedsLayout() {}
}
let view = PlaceholderView()

final class PlaceholderPlayer: @unchecked Sendable {
    var volume = 0.0
}
let player = PlaceholderPlayer()

final class PlaceholderEncoder: @unchecked Sendable {
    var quality = 0.0
}
let encoder = PlaceholderEncoder()

func render(_ value: Any) {}
func redraw() {}
func relayout() {}
