/// The key store you extend with your app's keys; the global ``Defaults`` reads them by key path.
///
/// Declare each key as a computed property. Several stores can coexist: give a plug-in its own store type
/// and its own ``DefaultsAdapter`` so its keys stay apart from the app's.
///
/// ## Usage
/// ```swift
/// extension DefaultsKeys {
///     var volume: Key<Double> { .init("volume", default: 0.5) }
///     var theme: Key<Theme> { .init("theme", default: .system) }
/// }
///
/// Defaults.volume -= 0.1
/// Defaults[\.theme] = .dark
/// ```
public struct DefaultsKeys: Sendable {
    /// Creates the key store.
    public init() {}
}
