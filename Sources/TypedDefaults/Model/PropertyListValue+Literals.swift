// Literals make `PropertyListValue` the dynamic value type of a key whose type varies: what
// sindresorhus/Defaults calls `AnySerializable`, and what SwiftyUserDefaults' `[String: Any]` keys hold.

extension PropertyListValue: ExpressibleByStringLiteral {
    /// A `.string`.
    ///
    /// ```swift
    /// let greeting: PropertyListValue = "hello"   // .string("hello")
    /// ```
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension PropertyListValue: ExpressibleByBooleanLiteral {
    /// A `.bool`.
    ///
    /// ```swift
    /// let flag: PropertyListValue = true   // .bool(true)
    /// ```
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension PropertyListValue: ExpressibleByIntegerLiteral {
    /// An `.integer`.
    ///
    /// ```swift
    /// let count: PropertyListValue = 3   // .integer(3)
    /// ```
    public init(integerLiteral value: Int64) {
        self = .integer(value)
    }
}

extension PropertyListValue: ExpressibleByFloatLiteral {
    /// A `.double`.
    ///
    /// ```swift
    /// let ratio: PropertyListValue = 0.5   // .double(0.5)
    /// ```
    public init(floatLiteral value: Double) {
        self = .double(value)
    }
}

extension PropertyListValue: ExpressibleByArrayLiteral {
    /// An `.array` of the elements, each itself a literal or a `PropertyListValue`.
    ///
    /// ```swift
    /// let mixed: PropertyListValue = [1, "two", 3.0, true]
    /// ```
    public init(arrayLiteral elements: PropertyListValue...) {
        self = .array(elements)
    }
}

extension PropertyListValue: ExpressibleByDictionaryLiteral {
    /// A `.dictionary` of the entries; of a key written twice, the last entry is kept.
    ///
    /// ```swift
    /// let window: PropertyListValue = ["width": 800, "height": 600, "title": "Main"]
    /// ```
    public init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        // Not `Dictionary(uniqueKeysWithValues:)`, which stops the process on a repeated key.
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
