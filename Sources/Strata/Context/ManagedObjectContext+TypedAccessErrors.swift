import Foundation

/// What the non-throwing typed subscripts of ``ManagedObject`` (`object[Employee.salary]`,
/// and the relationship ones) could not do.
///
/// A Swift property cannot throw, yet an access can fail at run time: a key the model
/// lacks, an object another context deleted, a stored Codable value that no longer decodes.
/// Following `NSCoder`'s `setErrorAndReturn` decoding policy, the accessor records the
/// error here and goes on (a read gives the type's null value, a write is dropped), and the
/// next ``save()`` throws it before saving anything: a mistake is never silent and never
/// stops the program (docs/SEMANTICS.md, "Typed access").
extension ManagedObjectContext {
    /// The errors non-throwing typed accessors met since the last save, oldest first; each
    /// names the object and the key. ``save()`` throws the first and forgets them all;
    /// ``clearTypedAccessErrors()`` forgets them without saving.
    public var typedAccessErrors: [StrataError] { pendingTypedAccessErrors }

    /// Forgets the recorded ``typedAccessErrors``, for code that has handled them.
    public func clearTypedAccessErrors() {
        pendingTypedAccessErrors = []
    }

    /// Throws (and forgets) the recorded errors: the first, its message saying how many
    /// more there were.
    func throwTypedAccessErrors() throws {
        guard let first = pendingTypedAccessErrors.first else { return }
        let more = pendingTypedAccessErrors.count - 1
        pendingTypedAccessErrors = []
        guard more > 0 else { throw first }
        var error = first
        error.message += " (and \(more) more typed access error\(more == 1 ? "" : "s") since the last save)"
        throw error
    }
}

extension ManagedObject {
    /// Keeps an error a non-throwing typed accessor met, with the object's context; an
    /// object without one (never inserted, or removed from its context) has nowhere to
    /// keep it, and its accessors answer as for a null value.
    func recordTypedAccessError(_ error: any Error) {
        guard let context else { return }
        let strataError = error as? StrataError
            ?? StrataError(.invalidArgument, "\(entity.name) \(objectID): \(error)",
                           context: .init { $0.entity = entity.name; $0.object = objectID.description })
        context.pendingTypedAccessErrors.append(strataError)
    }
}
