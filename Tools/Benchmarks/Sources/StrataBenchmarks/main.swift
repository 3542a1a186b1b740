import Foundation

// Entry point only: units are listed in WorkloadRegistry.swift, the command in BenchRunner.swift.
setvbuf(stdout, nil, _IOLBF, 0)  // progress lines appear at once when piped to a log
exit(BenchRunner(arguments: CommandLine.arguments).main())
