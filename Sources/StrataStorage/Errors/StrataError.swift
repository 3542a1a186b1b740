import Foundation

/// The one error type Strata throws: a code that can grow, a message, and the context a
/// user needs to find what is wrong (entity, object, key, segment and byte offset,
/// predicate position).
///
/// ```swift
/// do { try context.save() }
/// catch let error as StrataError where error.code == .validation {
///     for problem in error.problems { print(problem) }
/// }
/// ```
public struct StrataError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// What kind of failure this is.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The name.
        public var description: String { rawValue }

        /// A model is malformed (unknown destination, inverse mismatch, reserved name...).
        public static let invalidModel = Code(rawValue: "invalidModel")
        /// A model file could not be read or parsed.
        public static let modelFile = Code(rawValue: "modelFile")
        /// The store was created with another model.
        public static let modelIncompatible = Code(rawValue: "modelIncompatible")
        /// One or more objects failed validation.
        public static let validation = Code(rawValue: "validation")
        /// An entity, key or key path does not exist.
        public static let unknownKey = Code(rawValue: "unknownKey")
        /// A value has the wrong type for its property.
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// An abstract entity was inserted.
        public static let abstractEntity = Code(rawValue: "abstractEntity")
        /// The object does not exist in the store.
        public static let objectNotFound = Code(rawValue: "objectNotFound")
        /// The object is invalid (its context was reset or it was deleted and saved).
        public static let invalidObject = Code(rawValue: "invalidObject")
        /// The undo manager was used against its contract.
        public static let undo = Code(rawValue: "undo")
        /// A predicate could not be parsed or evaluated.
        public static let predicateSyntax = Code(rawValue: "predicateSyntax")
        /// A predicate could not be evaluated (type error, missing variable).
        public static let predicateEvaluation = Code(rawValue: "predicateEvaluation")
        /// A segment of the log is malformed.
        public static let corruptSegment = Code(rawValue: "corruptSegment")
        /// A file is not a Strata document or is damaged.
        public static let corruptDocument = Code(rawValue: "corruptDocument")
        /// SQLite reported an error.
        public static let sqlite = Code(rawValue: "sqlite")
        /// Another process holds the document.
        public static let documentBusy = Code(rawValue: "documentBusy")
        /// A save conflicted with another save (optimistic locking).
        public static let mergeConflict = Code(rawValue: "mergeConflict")
        /// A save would break a uniqueness constraint (Strata lists each in the error's
        /// `constraintConflicts`).
        public static let constraintConflict = Code(rawValue: "constraintConflict")
        /// An object ID or URI is malformed or belongs to no store.
        public static let invalidObjectID = Code(rawValue: "invalidObjectID")
        /// A relationship would cross stores.
        public static let crossStoreRelationship = Code(rawValue: "crossStoreRelationship")
        /// A store is missing, or the request names no store.
        public static let noStore = Code(rawValue: "noStore")
        /// An argument is out of its domain.
        public static let invalidArgument = Code(rawValue: "invalidArgument")
        /// Input/output failed.
        public static let io = Code(rawValue: "io")

        /// Lets callers write `catch StrataError.Code.validation`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? StrataError)?.code == code
        }
    }

    /// One validation problem: which object, which key, why.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// The entity of the object.
        public var entityName: String
        /// The object (its URI as text), when it has one.
        public var object: String?
        /// The key, or nil for a multi-key rule.
        public var key: String?
        /// Why the value is invalid.
        public var reason: String

        /// Creates a problem.
        public init(entityName: String, object: String?, key: String?, reason: String) {
            self.entityName = entityName
            self.object = object
            self.key = key
            self.reason = reason
        }

        /// `Employee <uri>.salary: reason`.
        public var description: String {
            var text = entityName
            if let object { text += " \(object)" }
            if let key { text += ".\(key)" }
            return text + ": " + reason
        }
    }

    /// The kind of failure.
    public var code: Code
    /// A sentence saying what is wrong.
    public var message: String
    /// Each validation problem (empty for other codes).
    public var problems: [Problem]
    /// Where the failure is and what it is about: an entity, key, segment and byte offset,
    /// file, SQLite's codes...
    public var context: Context
    /// The records behind Strata's `mergeConflicts` (StrataError+Conflicts.swift there).
    /// A conflict names objects, which this layer does not know; so the error holds it as
    /// a record it can only describe, and Strata hands it back as a `MergeConflict`.
    package var mergeConflictRecords: [any ConflictRecord] = []
    /// The records behind Strata's `constraintConflicts`, held the same way.
    package var constraintConflictRecords: [any ConflictRecord] = []

    /// What a conflict record must be for the error to carry it: sendable with the error,
    /// and printable in its ``description``.
    package typealias ConflictRecord = Sendable & CustomStringConvertible

    /// Creates an error.
    ///
    /// ```swift
    /// StrataError(.corruptSegment, "Segment 3 is corrupt at byte 32.", context: .init { $0.segment = 3; $0.offset = 32 })
    /// ```
    public init(_ code: Code, _ message: String, problems: [Problem] = [], context: Context = Context()) {
        self.code = code
        self.message = message
        self.problems = problems
        self.context = context
    }

    /// One line for logs and the CLI; validation errors list every problem, and merge
    /// conflicts every record, after it.
    public var description: String {
        if !mergeConflictRecords.isEmpty {
            return message + "\n" + mergeConflictRecords.map { "  - \($0)" }.joined(separator: "\n")
        }
        if !constraintConflictRecords.isEmpty {
            return message + "\n" + constraintConflictRecords.map { "  - \($0)" }.joined(separator: "\n")
        }
        if problems.isEmpty { return message }
        return message + "\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
    }

    /// Foundation's description, the same text.
    public var errorDescription: String? { description }
}
