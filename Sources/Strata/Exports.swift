// The storage layer (SQLite, LZ4, the byte codecs, StrataError) is its own target,
// StrataStorage, so that the compiler keeps it free of model and object types
// (docs/ARCHITECTURE.md, "Targets"). Its public names, StrataError first of all, are part of
// Strata's API: re-exported here, they need nothing more than `import Strata`.
@_exported import StrataStorage
