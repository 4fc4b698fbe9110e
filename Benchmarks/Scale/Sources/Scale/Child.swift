#if os(Linux)
import Foundation
import TypedDefaults

/// This executable started again as a child process of a measurement: a new process's first read, its peak
/// memory, a write stream whose CPU time is its own, or a writer in another process.
///
/// The parent sets ``variable`` to a JSON ``Spec``. The child checks every value it reads, writes one line of
/// `name=value` fields to standard output (its CPU time and peak memory last), and exits 0; on a wrong value or
/// any error it says why on standard error and exits 1, which fails the parent.
enum Child {
    static let variable = "TYPED_DEFAULTS_SCALE_CHILD"

    enum Mode: String, Codable {
        /// Exits at once: what starting and ending a process costs.
        case none
        /// Opens the suite with Foundation, reads "k", and exits.
        case foundationRead = "foundation"
        /// Opens the suite with TypedDefaults, reads "k", and exits.
        case typedRead = "typed"
        /// Opens, reads "k", writes it once and makes it durable, and reports its peak memory.
        case foundationMemory = "foundation-memory"
        case typedMemory = "typed-memory"
        /// Writes "c" every 10 ms (TypedDefaults with `.immediate`; Foundation with `synchronize()`).
        case foundationWriter = "foundation-writer"
        case typedWriter = "typed-writer"
        /// Writes "k" every millisecond and reports the CPU time that cost.
        case foundationStream = "foundation-stream"
        case typedStream = "typed-stream"
    }

    struct Spec: Codable {
        var mode: Mode
        var directory: String
        var name: String
        var size: Int
        /// The value "k" must hold when the child reads it.
        var expected: Int = Seed.k
        /// How long a writer or a stream runs.
        var seconds: Double = 0

        init(_ mode: Mode, _ suite: Suite, expected: Int = Seed.k, seconds: Double = 0) {
            self.mode = mode
            directory = suite.directory.path
            name = suite.name
            size = suite.size
            self.expected = expected
            self.seconds = seconds
        }
    }

    /// Runs the child described by `encoded` and exits.
    static func main(_ encoded: String) -> Never {
        do {
            let spec = try JSONDecoder().decode(Spec.self, from: Data(encoded.utf8))
            let suite = Suite(
                directory: URL(fileURLWithPath: spec.directory, isDirectory: true),
                name: spec.name,
                size: spec.size
            )
            var fields = try perform(spec, on: suite)
            let usage = ResourceUsage.current()
            fields.append(("cpu", String(usage.cpu)))
            fields.append(("maxrss", String(usage.maxResidentKiB)))
            fields.append(("peak", String(usage.peakResidentKiB)))
            emit(fields)
            exit(EXIT_SUCCESS)
        } catch {
            printError("Scale child (\(encoded)): \(error)")
            exit(EXIT_FAILURE)
        }
    }

    private static func perform(_ spec: Spec, on suite: Suite) throws -> [(String, String)] {
        switch spec.mode {
        case .none:
            return []
        case .foundationRead:
            try expect(try suite.foundation().integer(forKey: "k"), spec.expected, "Foundation's \"k\"")
            return []
        case .typedRead:
            try expect(try suite.adapter()[key: Keys.k], spec.expected, "TypedDefaults' \"k\"")
            return []
        case .foundationMemory:
            let defaults = try suite.foundation()
            try expect(defaults.integer(forKey: "k"), spec.expected, "Foundation's \"k\"")
            defaults.set(spec.expected + 1, forKey: "k")
            guard defaults.synchronize() else { throw ScaleError("Foundation's synchronize() failed") }
            return []
        case .typedMemory:
            let adapter = try suite.adapter()
            try expect(adapter[key: Keys.k], spec.expected, "TypedDefaults' \"k\"")
            adapter[key: Keys.k] = spec.expected + 1
            try adapter.flush()
            return []
        case .foundationWriter:
            let defaults = try suite.foundation()
            try expect(defaults.integer(forKey: "k2"), Seed.k2, "Foundation's \"k2\"")
            return try writeEvery(.milliseconds(10), for: spec.seconds) { value in
                defaults.set(value, forKey: Keys.other.name)
                guard defaults.synchronize() else { throw ScaleError("Foundation's synchronize() failed") }
            }
        case .typedWriter:
            let adapter = try suite.adapter(writePolicy: .immediate)
            try expect(adapter[key: Keys.k2], Seed.k2, "TypedDefaults' \"k2\"")
            return try writeEvery(.milliseconds(10), for: spec.seconds) { value in
                try adapter.set(value, for: Keys.other)
            }
        case .foundationStream:
            let defaults = try suite.foundation()
            try expect(defaults.integer(forKey: "k"), spec.expected, "Foundation's \"k\"")
            var synchronized = ContinuousClock.now
            return try stream(from: spec.expected, for: spec.seconds) { value in
                defaults.set(value, forKey: "k")
                // As durable as a coalesced write: on disk within 100 ms.
                if synchronized.duration(to: .now) >= .milliseconds(100) {
                    guard defaults.synchronize() else { throw ScaleError("Foundation's synchronize() failed") }
                    synchronized = .now
                }
            } finish: {
                guard defaults.synchronize() else { throw ScaleError("Foundation's synchronize() failed") }
            }
        case .typedStream:
            let adapter = try suite.adapter()
            try expect(adapter[key: Keys.k], spec.expected, "TypedDefaults' \"k\"")
            return try stream(from: spec.expected, for: spec.seconds) { value in
                adapter[key: Keys.k] = value
            } finish: {
                try adapter.flush()
            }
        }
    }

    /// Says "ready", then writes 1, 2, 3 and on, at most once per `interval` for `seconds`.
    ///
    /// A write that takes longer than the interval delays the next rather than bunching them up. Reports how many
    /// it wrote.
    private static func writeEvery(
        _ interval: Duration,
        for seconds: Double,
        _ write: (Int) throws -> Void
    ) throws -> [(String, String)] {
        emit([("ready", "1")])
        let end = ContinuousClock.now + .seconds(seconds)
        var next = ContinuousClock.now
        var written = 0
        while ContinuousClock.now < end {
            written += 1
            try write(written)
            next = max(next + interval, .now)
            sleep(until: next)
        }
        return [("writes", String(written)), ("last", String(written))]
    }

    /// Writes `first + 1`, `first + 2` and on, once a millisecond for `seconds`, then `finish`es.
    ///
    /// `finish` makes the writes durable. Reports the CPU time over the whole of it as a fraction of the wall
    /// time.
    private static func stream(
        from first: Int,
        for seconds: Double,
        _ write: (Int) throws -> Void,
        finish: () throws -> Void
    ) throws -> [(String, String)] {
        let usage = ResourceUsage.current()
        let start = ContinuousClock.now
        let end = start + .seconds(seconds)
        var next = start
        var value = first
        while ContinuousClock.now < end {
            value += 1
            try write(value)
            next = max(next + .milliseconds(1), .now)
            sleep(until: next)
        }
        try finish()
        let wall = start.duration(to: .now).seconds
        let cpu = ResourceUsage.current().cpu - usage.cpu
        return [("share", String(cpu / wall)), ("writes", String(value - first)), ("last", String(value))]
    }

    private static func expect(_ value: Int, _ expected: Int, _ what: String) throws {
        guard value == expected else { throw ScaleError("read \(what) = \(value), expected \(expected)") }
    }

    /// Writes one line of `name=value` fields to standard output, unbuffered.
    private static func emit(_ fields: [(String, String)]) {
        let line = fields.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
#endif
