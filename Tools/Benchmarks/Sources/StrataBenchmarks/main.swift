import Foundation

// Entry point only: units are listed in WorkloadRegistry.swift, the command in BenchRunner.swift.
exit(BenchRunner(arguments: CommandLine.arguments).main())
