import Configuration
import TypedDefaults

/// One state of a suite's stored values, for lookups that must not see two different writes.
struct SuiteSnapshot: ConfigSnapshot {
    let providerName: String
    let values: [String: PropertyListValue]
    let secrets: SecretsSpecifier<String, PropertyListValue>

    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        let name = DefaultsProvider.defaultsKey(for: key)
        return LookupResult(encodedKey: name, value: try configValue(forKey: name, type: type))
    }

    /// The value stored under the defaults key `name` as `type`, or `nil` when none is stored.
    func configValue(forKey name: String, type: ConfigType) throws(DefaultsProviderError) -> ConfigValue? {
        guard let stored = values[name] else { return nil }
        let content = try stored.configContent(as: type, key: name)
        return ConfigValue(content, isSecret: secrets.isSecret(key: name, value: stored))
    }
}

extension SuiteSnapshot: CustomStringConvertible {
    /// The provider and how many values the state holds; never the values, which may be secrets.
    var description: String { "\(providerName)[\(values.count) values]" }
}
