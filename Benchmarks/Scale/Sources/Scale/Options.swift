#if os(Linux)
import Foundation

/// The command line.
struct Options {
    static let usage = """
        usage: Scale [--sizes 10,1000,10000,100000] [--rounds 7] [--load-seconds 10] [--stream-seconds 5]
                     [--only load,memory] [--quick] [--check] [--thresholds FILE]

          --sizes           suite sizes to measure (string keys besides "k" and "k2"), comma-separated
          --rounds          interleaved rounds per measurement; each result is the median over them
          --load-seconds    how long the read-latency measurement reads while others write
          --stream-seconds  how long each steady write stream runs
          --only            measure only these: first-read, modify, flush, load, memory, stream, fan-out
          --quick           a smoke run: sizes 10 and 1,000, 2 rounds, 1 s of load, 1 s streams (options given
                            as well override these)
          --check           exit 1, listing every miss, if a result misses thresholds.json
          --thresholds      the thresholds file (default: thresholds.json beside Package.swift)
        """

    var sizes = [10, 1_000, 10_000, 100_000]
    var rounds = 7
    var loadSeconds = 10.0
    var streamSeconds = 5.0
    var check = false
    var quick = false
    var thresholdsPath = Options.defaultThresholdsPath
    /// The measurements to make, by name; `nil` for all.
    var only: Set<String>?

    /// `Benchmarks/Scale/thresholds.json`, found from this source file, so the run works from any directory.
    static var defaultThresholdsPath: String {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()
            .deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("thresholds.json")
            .path
    }

    static let measurementNames: Set = ["first-read", "modify", "flush", "load", "memory", "stream", "fan-out"]

    /// Parses the arguments (without the program's name); throws with the reason on anything it does not take.
    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var sizes: [Int]?
        var rounds: Int?
        var loadSeconds: Double?
        var streamSeconds: Double?
        var remaining = arguments[...]
        func value(of option: String) throws -> String {
            guard let value = remaining.popFirst() else { throw ScaleError("\(option) needs a value") }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--sizes":
                let text = try value(of: argument)
                let parsed = text.split(separator: ",").map { Int($0.replacingOccurrences(of: "_", with: "")) }
                guard !parsed.isEmpty, parsed.allSatisfy({ ($0 ?? 0) > 0 }) else {
                    throw ScaleError("--sizes takes positive whole numbers separated by commas, not \(text)")
                }
                sizes = parsed.compactMap { $0 }
            case "--rounds":
                guard let parsed = Int(try value(of: argument)), parsed > 0 else {
                    throw ScaleError("--rounds takes a positive whole number")
                }
                rounds = parsed
            case "--load-seconds":
                guard let parsed = Double(try value(of: argument)), parsed > 0 else {
                    throw ScaleError("--load-seconds takes a positive number")
                }
                loadSeconds = parsed
            case "--stream-seconds":
                guard let parsed = Double(try value(of: argument)), parsed > 0 else {
                    throw ScaleError("--stream-seconds takes a positive number")
                }
                streamSeconds = parsed
            case "--only":
                let names = Set(try value(of: argument).split(separator: ",").map(String.init))
                let unknown = names.subtracting(Options.measurementNames)
                guard unknown.isEmpty else { throw ScaleError("--only: no measurement named \(unknown.sorted())") }
                options.only = names
            case "--quick":
                options.quick = true
            case "--check":
                options.check = true
            case "--thresholds":
                options.thresholdsPath = try value(of: argument)
            case "--help", "-h":
                print(usage)
                exit(EXIT_SUCCESS)
            default:
                throw ScaleError("unknown option \(argument)")
            }
        }
        if options.quick {
            options.sizes = [10, 1_000]
            options.rounds = 2
            options.loadSeconds = 1
            options.streamSeconds = 1
        }
        options.sizes = sizes ?? options.sizes
        options.rounds = rounds ?? options.rounds
        options.loadSeconds = loadSeconds ?? options.loadSeconds
        options.streamSeconds = streamSeconds ?? options.streamSeconds
        return options
    }

    /// Operations per round of the durable-write measurements: a few hundred milliseconds of work per round at
    /// every size (one operation at 100,000 keys, where one costs up to half a second).
    func durableOperations(size: Int) -> Int {
        min(200, max(1, 50_000 / size))
    }

    /// Batches per round, and coalesced writes per batch, of the fan-out measurement.
    let fanOutBatches = 10
    let fanOutWrites = 100
    /// Observers of other keys in the fan-out measurement.
    let fanOutObservers = 1_000
}
#endif
