import Foundation
import TypedDefaults

/// One key of the type matrix: how to write its value, and how to check that it came back exactly.
public struct MatrixEntry: Sendable {
    /// The key's name in the suite.
    public let key: String
    let write: @Sendable (DefaultsAdapter<DefaultsKeys>) throws -> Void
    let check: @Sendable (DefaultsAdapter<DefaultsKeys>) -> String?
}

/// The shared type matrix: every supported type in every shape (value, optional, array, nested array,
/// dictionary, dictionary of arrays), written by one adapter and checked through another, in this process or
/// in a new one (the test helper runs it as a child process).
public enum TypeMatrix {
    /// Writes every entry.
    public static func write(_ entries: [MatrixEntry], to adapter: DefaultsAdapter<DefaultsKeys>) throws {
        for entry in entries { try entry.write(adapter) }
    }

    /// The entries that did not come back exactly, each as a sentence.
    public static func failures(_ entries: [MatrixEntry], in adapter: DefaultsAdapter<DefaultsKeys>) -> [String] {
        entries.compactMap { $0.check(adapter) }
    }

    /// Every shape of one type.
    ///
    /// `fallback` is each key's default and must differ from every sample, so a read that fell back to the
    /// default cannot pass for a value that came back.
    public static func entries<T: DefaultsSerializable & ExactlyEqual & SendableMetatype>(
        _ valueType: T.Type,
        named type: String = "\(T.self)",
        fallback: @autoclosure @escaping @Sendable () -> T,
        samples: @escaping @Sendable () -> [T]
    ) -> [MatrixEntry] {
        var entries = samples().indices
            .map { index in
                entry("\(type).value.\(index)", default: fallback()) { samples()[index] }
            }
        entries += [
            entry("\(type).optional", default: nil) { samples().first },
            removedOptional("\(type).optional.removed", sample: { samples()[0] }),
            entry("\(type).array", default: []) { samples() },
            entry("\(type).nestedArray", default: []) { [samples(), [], [samples()[0]]] },
            entry("\(type).dictionary", default: [:]) {
                Dictionary(uniqueKeysWithValues: samples().enumerated().map { ("k\($0.offset)", $0.element) })
            },
            entry("\(type).dictionaryOfArrays", default: [:]) {
                ["all": samples(), "none": [], "first": [samples()[0]]]
            },
        ]
        return entries
    }

    /// A set of a hashable type.
    public static func setEntry<T: DefaultsSerializable & ExactlyEqual & Hashable & SendableMetatype>(
        _ valueType: T.Type,
        samples: @escaping @Sendable () -> Set<T>
    ) -> MatrixEntry {
        entry("Set<\(T.self)>", default: [], value: samples)
    }

    /// A value whose key must hold exactly `value()` after writing it.
    ///
    /// The default differs from the value, so a read that fell back to it fails the check.
    public static func entry<V: DefaultsSerializable & ExactlyEqual & SendableMetatype>(
        _ name: String,
        default fallback: @autoclosure @escaping @Sendable () -> V,
        value: @escaping @Sendable () -> V
    ) -> MatrixEntry {
        MatrixEntry(
            key: name,
            write: { adapter in try adapter.set(value(), for: Key(name, default: fallback())) },
            check: { adapter in
                let key = Key(name, default: fallback())
                let expected = value()
                let found = adapter[key: key]
                return found.isExactly(expected) ? nil : "\(name): expected \(show(expected)), read \(show(found))"
            }
        )
    }

    /// An optional written with a value and then with `nil`: the key must be gone.
    private static func removedOptional<T: DefaultsSerializable & ExactlyEqual & SendableMetatype>(
        _ name: String,
        sample: @escaping @Sendable () -> T
    ) -> MatrixEntry {
        MatrixEntry(
            key: name,
            write: { adapter in
                try adapter.set(sample(), for: Key<T?>(name))
                try adapter.set(nil, for: Key<T?>(name))
            },
            check: { adapter in
                let found = adapter[key: Key<T?>(name)]
                if adapter.hasKey(Key<T?>(name)) { return "\(name): setting nil did not remove the key" }
                return found == nil ? nil : "\(name): expected nil, read \(show(found as Any))"
            }
        )
    }

    private static func show(_ value: Any) -> String {
        if let date = value as? Date { return "\(date) (\(date.timeIntervalSinceReferenceDate))" }
        return String(reflecting: value)
    }
}
