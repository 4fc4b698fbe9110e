#if canImport(SwiftUI)
import SwiftUI

// Apple platforms only: nothing on Linux compiles this file. Written against SwiftUI's documented
// `DynamicProperty` (a protocol isolated to no actor, whose `update()` has a default implementation) and
// `Binding.init(get:set:)` (whose closures are `@Sendable`).

/// A view that reads a `@Default` property in its `body` updates when the key changes, however it changes.
///
/// The update comes from the Observation framework, which SwiftUI uses to track what `body` reads (see
/// ``Default``); being a dynamic property tells SwiftUI that the property belongs to the view, like
/// `@AppStorage`. The value is the store's, not the view's: `update()` has nothing to refresh.
///
/// ```swift
/// struct SettingsView: View {
///     @Default(\.theme) var theme
///
///     var body: some View {
///         Text("Theme: \(theme)")
///     }
/// }
/// ```
extension Default: DynamicProperty {}

extension Default {
    /// A binding to the key's value, for controls that edit it: `$theme.binding`.
    ///
    /// Reading it reads the key (and is tracked like reading the property); setting it writes the key.
    ///
    /// ```swift
    /// struct SettingsView: View {
    ///     @Default(\.soundEnabled) var soundEnabled
    ///
    ///     var body: some View {
    ///         Toggle("Sound", isOn: $soundEnabled.binding)
    ///     }
    /// }
    /// ```
    public var binding: Binding<Value> {
        Binding(get: { wrappedValue }, set: { wrappedValue = $0 })
    }
}
#endif
