import Foundation

/// The checks of `strata-log verify` below the log: SQLite's own `integrity_check` over
/// every page and index, and the identity checksum of `strata_meta`.
enum DocumentIntegrity {
    /// Adds SQLite's and the identity checksum's findings to `report`.
    static func check(_ log: DocumentLogFile, report: inout VerificationReport) throws {
        do {
            let lines = try log.connection.prepare("PRAGMA integrity_check(20)").rows()
                .compactMap { row -> String? in if case .text(let text)? = row.first { text } else { nil } }
            if lines == ["ok"] {
                report.passed.append("SQLite integrity check: every page and index is sound")
            } else {
                report.problems.append("SQLite integrity check: \(lines.joined(separator: "; ")).")
            }
        } catch let error as StrataError {
            report.problems.append("SQLite integrity check cannot read the file: \(error.message)")
        }
        switch log.identityIntact {
        case true?:
            report.passed.append("identity checksum matches (store identifier \(log.identifier), model, format, creation date)")
            if log.meta.values[DocumentIdentity.copyKey] != nil,
               DocumentIdentity.fields(fromCopy: log.meta.values[DocumentIdentity.copyKey], expected: log.meta.identityChecksum ?? "") == nil {
                report.problems.append("The identity copy in strata_meta is damaged (the identity itself is intact; `strata-log recover` rewrites the copy).")
            }
        case false?:
            var problem = "The identity checksum does not match: the store identifier, model, format or creation date is damaged"
            if let repair = DocumentIdentity.singleByteRepair(log.meta.values, expected: log.meta.identityChecksum ?? "") {
                problem += " (\(repair.field) is one byte off; `strata-log recover` restores it)"
            }
            report.problems.append(problem + ".")
        case nil:
            report.notes.append("no identity checksum (older document); the next save adds one")
        }
    }
}
