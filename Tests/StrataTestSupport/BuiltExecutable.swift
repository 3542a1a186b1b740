import Foundation

/// The directory SwiftPM builds the package's programs into: the one that holds the
/// running test bundle (the test targets depend on every program they run, so these are
/// always built with them).
package let productsDirectory: URL = {
    #if os(macOS)
    // The test bundle is loaded by `xctest`: the bundle, not the process, tells where.
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
        return bundle.bundleURL.deletingLastPathComponent()
    }
    fatalError("no .xctest bundle is loaded: cannot tell where the built programs are")
    #else
    return Bundle.main.bundleURL
    #endif
}()

/// The built program `name` (`strata`, `strata-log`, `strata-crash-writer`,
/// `strata-stress-writer`, `employees-example`, ...).
package func builtExecutable(_ name: String) -> URL {
    productsDirectory.appendingPathComponent(name)
}
