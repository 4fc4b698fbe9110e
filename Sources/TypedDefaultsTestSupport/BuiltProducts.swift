import Foundation

#if canImport(Darwin)
import Darwin
#endif

/// Where the package's executables are built, for tests that run them as child processes: the directory that
/// holds the test binary (on Apple platforms, the `.xctest` bundle).
///
/// On Apple platforms the process running the tests is a runner of the toolchain (`xctest`,
/// `swiftpm-testing-helper`) that loads the test bundle, so the bundle is found from the image the caller's code
/// is in; on Linux the test binary is the process's own executable.
///
/// ```swift
/// process.executableURL = BuiltProducts.executable("TypedDefaultsTestHelper")
/// ```
public enum BuiltProducts {
    /// The package's executable `name`, built beside the tests; `caller` finds them (leave it out).
    public static func executable(_ name: String, caller: UnsafeRawPointer = #dsohandle) -> URL {
        directory(caller: caller).appendingPathComponent(name)
    }

    private static func directory(caller: UnsafeRawPointer) -> URL {
        #if os(Linux) || os(Android)
        return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        #else
        var image = Dl_info()
        if dladdr(caller, &image) != 0, let path = image.dli_fname,
            let bundle = enclosingTestBundle(URL(fileURLWithPath: String(cString: path)))
        {
            return bundle.deletingLastPathComponent()
        }
        // A runner names the bundle it runs among its arguments.
        for argument in ProcessInfo.processInfo.arguments {
            if let bundle = enclosingTestBundle(URL(fileURLWithPath: argument)) {
                return bundle.deletingLastPathComponent()
            }
        }
        return Bundle.main.bundleURL.deletingLastPathComponent()
        #endif
    }

    /// The `.xctest` bundle `url` is in or is, if any.
    private static func enclosingTestBundle(_ url: URL) -> URL? {
        var current = url.resolvingSymlinksInPath()
        while current.pathComponents.count > 1 {
            if current.pathExtension == "xctest" { return current }
            current.deleteLastPathComponent()
        }
        return nil
    }
}
