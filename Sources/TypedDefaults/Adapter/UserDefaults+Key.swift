import Foundation

extension UserDefaults {
    /// The value for a typed key: TypedDefaults is just `UserDefaults` with sugar.
    ///
    /// Reads and writes behave as through ``DefaultsAdapter/init(defaults:keyStore:launchArguments:writePolicy:)``
    /// with the default policy: typed, with the key's default and launch arguments honoured.
    ///
    /// ```swift
    /// let flag = Key<Bool>("flag", default: false)
    /// UserDefaults.standard[flag] = true
    /// ```
    public subscript<Value>(key: Key<Value>) -> Value {
        get { DefaultsAdapter(defaults: self, keyStore: DefaultsKeys())[key: key] }
        set { DefaultsAdapter(defaults: self, keyStore: DefaultsKeys())[key: key] = newValue }
    }
}
