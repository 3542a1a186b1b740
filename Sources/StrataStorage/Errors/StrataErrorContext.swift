import Foundation

extension StrataError {
    /// Where a failure is and what it is about, in typed fields: the file, the segment and
    /// byte offset, the entity, object and key, the position in a caller's text, SQLite's
    /// codes and statement. A field is nil (or empty) when the error does not say.
    ///
    /// Nested in ``StrataError`` because it means nothing without one (and a top-level
    /// `Context` would read as a managed object context); an error names it as
    /// ``StrataError/context``:
    ///
    /// ```swift
    /// catch let error as StrataError where error.code == .corruptSegment {
    ///     print(error.context.segment, error.context.offset, error.context.layer)
    /// }
    /// throw StrataError(.corruptSegment, "…", context: .init { $0.segment = 3; $0.offset = 32 })
    /// ```
    ///
    /// One field holds one meaning wherever it is set: ``column`` is a 1-based character
    /// position in a caller's text (a predicate, an option, a JSON file), ``columnName`` a
    /// table's or a CSV file's column. ``description`` lists the fields that are set under
    /// stable names.
    ///
    /// A context is one reference to its fields (copied on write): an error and a throw
    /// site cost a few bytes of stack however many fields there are, which a recursive
    /// evaluator or parser, throwing from deep inside, needs.
    public struct Context: Sendable, Hashable {
        // MARK: Files and the log

        /// The file the error is about: a document, a model file or folder, an import file.
        public var path: String? {
            get { storage.fields.path }
            set { uniqueStorage().fields.path = newValue }
        }
        /// Which of the failures a code covers this is, when a caller can act on the
        /// difference (a busy, damaged or read-only document…).
        public var kind: Kind? {
            get { storage.fields.kind }
            set { uniqueStorage().fields.kind = newValue }
        }
        /// The sequence number of the segment of the log the failure is in.
        public var segment: UInt64? {
            get { storage.fields.segment }
            set { uniqueStorage().fields.segment = newValue }
        }
        /// A byte offset: into a segment (its LZ4 frame or raw body, as ``layer`` says), a
        /// model file's text or a JSON document.
        public var offset: Int? {
            get { storage.fields.offset }
            set { uniqueStorage().fields.offset = newValue }
        }
        /// Which bytes of a segment ``offset`` counts into.
        public var layer: Layer? {
            get { storage.fields.layer }
            set { uniqueStorage().fields.layer = newValue }
        }
        /// The undo group (its ID in the log) the failure is about.
        public var group: UInt64? {
            get { storage.fields.group }
            set { uniqueStorage().fields.group = newValue }
        }
        /// The segment that bounds what could be reached: the one a migration started at,
        /// the first one a history retention kept, or the last one compaction folded.
        public var boundarySegment: UInt64? {
            get { storage.fields.boundarySegment }
            set { uniqueStorage().fields.boundarySegment = newValue }
        }
        /// A document's format version (a newer one than this build reads).
        public var format: Int? {
            get { storage.fields.format }
            set { uniqueStorage().fields.format = newValue }
        }

        // MARK: The model and its objects

        /// The entity's name.
        public var entity: String? {
            get { storage.fields.entity }
            set { uniqueStorage().fields.entity = newValue }
        }
        /// Entities, when the error names several (those two models being merged both declare).
        public var entities: [String] {
            get { storage.fields.entities }
            set { uniqueStorage().fields.entities = newValue }
        }
        /// A property key or key path (`salary`, `department.name`).
        public var key: String? {
            get { storage.fields.key }
            set { uniqueStorage().fields.key = newValue }
        }
        /// The object, as its URI or short reference (or the text given for one).
        public var object: String? {
            get { storage.fields.object }
            set { uniqueStorage().fields.object = newValue }
        }
        /// Objects, when the error names several, as their URIs or short references.
        public var objects: [String] {
            get { storage.fields.objects }
            set { uniqueStorage().fields.objects = newValue }
        }
        /// What keeps a migration from being inferred: entity names and `Entity.property` keys.
        public var blocking: [String] {
            get { storage.fields.blocking }
            set { uniqueStorage().fields.blocking = newValue }
        }
        /// A fetch request template's name.
        public var template: String? {
            get { storage.fields.template }
            set { uniqueStorage().fields.template = newValue }
        }
        /// A model: its name, a version's file name, or its hash in a document.
        public var model: String? {
            get { storage.fields.model }
            set { uniqueStorage().fields.model = newValue }
        }
        /// A version of the model, as a migration numbers them.
        public var modelVersion: Int? {
            get { storage.fields.modelVersion }
            set { uniqueStorage().fields.modelVersion = newValue }
        }
        /// A query generation token, as written.
        public var token: String? {
            get { storage.fields.token }
            set { uniqueStorage().fields.token = newValue }
        }

        // MARK: Predicates and expressions

        /// A predicate's text (the whole one being parsed, or the comparison that failed).
        public var predicate: String? {
            get { storage.fields.predicate }
            set { uniqueStorage().fields.predicate = newValue }
        }
        /// An expression's text (a derivation, a batch update's value, a subscript).
        public var expression: String? {
            get { storage.fields.expression }
            set { uniqueStorage().fields.expression = newValue }
        }
        /// A regular expression pattern.
        public var pattern: String? {
            get { storage.fields.pattern }
            set { uniqueStorage().fields.pattern = newValue }
        }
        /// A variable (`$NAME`) that has no value.
        public var variable: String? {
            get { storage.fields.variable }
            set { uniqueStorage().fields.variable = newValue }
        }
        /// A function or operator (`divide:by:`, `CONTAINS`, `SUBQUERY`).
        public var function: String? {
            get { storage.fields.function }
            set { uniqueStorage().fields.function = newValue }
        }
        /// The kind of value on an operator's left (`string`, `integer`…).
        public var leftType: String? {
            get { storage.fields.leftType }
            set { uniqueStorage().fields.leftType = newValue }
        }
        /// The kind of value on an operator's right.
        public var rightType: String? {
            get { storage.fields.rightType }
            set { uniqueStorage().fields.rightType = newValue }
        }
        /// The kind of the value at fault: a function's argument, a cast's value, a subscript.
        public var valueType: String? {
            get { storage.fields.valueType }
            set { uniqueStorage().fields.valueType = newValue }
        }
        /// The type a value should have had (an attribute's type, a cast's target).
        public var expectedType: String? {
            get { storage.fields.expectedType }
            set { uniqueStorage().fields.expectedType = newValue }
        }
        /// A value the caller gave, as text (an argument, a setting, a notification's name).
        public var value: String? {
            get { storage.fields.value }
            set { uniqueStorage().fields.value = newValue }
        }

        // MARK: A position in a caller's input

        /// A line, from 1.
        public var line: Int? {
            get { storage.fields.line }
            set { uniqueStorage().fields.line = newValue }
        }
        /// A character position in a line or a one-line text, from 1.
        public var column: Int? {
            get { storage.fields.column }
            set { uniqueStorage().fields.column = newValue }
        }
        /// A row of an import or a batch insert, from 1; 0 is a CSV file's header.
        public var row: Int? {
            get { storage.fields.row }
            set { uniqueStorage().fields.row = newValue }
        }
        /// Rows of a batch insert, when the error names several.
        public var rows: [Int] {
            get { storage.fields.rows }
            set { uniqueStorage().fields.rows = newValue }
        }
        /// A named field of the input: a JSON member (`optional`, `deleteRule`).
        public var field: String? {
            get { storage.fields.field }
            set { uniqueStorage().fields.field = newValue }
        }
        /// A field of a CSV record, by number from 0.
        public var fieldIndex: Int? {
            get { storage.fields.fieldIndex }
            set { uniqueStorage().fields.fieldIndex = newValue }
        }
        /// Where in a JSON model the field is (`entities[0].attributes[1].type`; `(root)`).
        public var jsonPath: String? {
            get { storage.fields.jsonPath }
            set { uniqueStorage().fields.jsonPath = newValue }
        }
        /// The element of an Xcode model's XML.
        public var xmlElement: String? {
            get { storage.fields.xmlElement }
            set { uniqueStorage().fields.xmlElement = newValue }
        }
        /// The XML attribute of that element.
        public var xmlAttribute: String? {
            get { storage.fields.xmlAttribute }
            set { uniqueStorage().fields.xmlAttribute = newValue }
        }
        /// The XML parser's error code.
        public var xmlErrorCode: Int? {
            get { storage.fields.xmlErrorCode }
            set { uniqueStorage().fields.xmlErrorCode = newValue }
        }
        /// A command-line option (`--select`).
        public var option: String? {
            get { storage.fields.option }
            set { uniqueStorage().fields.option = newValue }
        }

        // MARK: Limits

        /// The limit passed, by the name its setting has in `STRATA_LIMITS` (`maxPredicateDepth`).
        public var limit: String? {
            get { storage.fields.limit }
            set { uniqueStorage().fields.limit = newValue }
        }
        /// The limit's value.
        public var maximum: Int? {
            get { storage.fields.maximum }
            set { uniqueStorage().fields.maximum = newValue }
        }
        /// How much the input held of what the limit counts.
        public var amount: Int? {
            get { storage.fields.amount }
            set { uniqueStorage().fields.amount = newValue }
        }

        // MARK: SQLite and the system

        /// The SQL statement that failed, in full.
        public var sql: String? {
            get { storage.fields.sql }
            set { uniqueStorage().fields.sql = newValue }
        }
        /// SQLite's primary result code (`SQLITE_FULL` is 13).
        public var sqliteResultCode: Int32? {
            get { storage.fields.sqliteResultCode }
            set { uniqueStorage().fields.sqliteResultCode = newValue }
        }
        /// SQLite's extended result code (`SQLITE_CONSTRAINT_UNIQUE` is 2067).
        public var sqliteExtendedCode: Int32? {
            get { storage.fields.sqliteExtendedCode }
            set { uniqueStorage().fields.sqliteExtendedCode = newValue }
        }
        /// SQLite's own message (the error's message says it in Strata's words).
        public var sqliteMessage: String? {
            get { storage.fields.sqliteMessage }
            set { uniqueStorage().fields.sqliteMessage = newValue }
        }
        /// The operating system's error number (`ENOENT` is 2).
        public var errno: Int32? {
            get { storage.fields.errno }
            set { uniqueStorage().fields.errno = newValue }
        }
        /// The cause behind a storage failure: a full disk, a permission, damage.
        public var cause: Cause? {
            get { storage.fields.cause }
            set { uniqueStorage().fields.cause = newValue }
        }
        /// The process that holds a document's lock, when the system says.
        public var processID: Int32? {
            get { storage.fields.processID }
            set { uniqueStorage().fields.processID = newValue }
        }
        /// A database table.
        public var table: String? {
            get { storage.fields.table }
            set { uniqueStorage().fields.table = newValue }
        }
        /// A column of a table, or of a CSV file (by its header's name).
        public var columnName: String? {
            get { storage.fields.columnName }
            set { uniqueStorage().fields.columnName = newValue }
        }
        /// A uniqueness constraint (its keys, comma-separated) or an index.
        public var constraint: String? {
            get { storage.fields.constraint }
            set { uniqueStorage().fields.constraint = newValue }
        }
        /// What was being done (a blob's read or write, a recovery's stage).
        public var operation: String? {
            get { storage.fields.operation }
            set { uniqueStorage().fields.operation = newValue }
        }
        /// Why the input is malformed, in a few words.
        public var reason: String? {
            get { storage.fields.reason }
            set { uniqueStorage().fields.reason = newValue }
        }

        // MARK: Remotes and servers

        /// A remote: its folder or its PostgreSQL location (without a password).
        public var remote: String? {
            get { storage.fields.remote }
            set { uniqueStorage().fields.remote = newValue }
        }
        /// A PostgreSQL server, as HOST:PORT.
        public var server: String? {
            get { storage.fields.server }
            set { uniqueStorage().fields.server = newValue }
        }
        /// A document's name on a server.
        public var document: String? {
            get { storage.fields.document }
            set { uniqueStorage().fields.document = newValue }
        }
        /// A PostgreSQL error's SQLSTATE.
        public var sqlState: String? {
            get { storage.fields.sqlState }
            set { uniqueStorage().fields.sqlState = newValue }
        }
        /// A database driver's own description of a failure.
        public var driverDetail: String? {
            get { storage.fields.driverDetail }
            set { uniqueStorage().fields.driverDetail = newValue }
        }
        /// The merge policy a refused operation ran with.
        public var mergePolicy: String? {
            get { storage.fields.mergePolicy }
            set { uniqueStorage().fields.mergePolicy = newValue }
        }

        /// Whether a tool already added a "did you mean" suggestion to the message.
        package var hasSuggestion: Bool {
            get { storage.fields.hasSuggestion }
            set { uniqueStorage().fields.hasSuggestion = newValue }
        }

        /// The fields, shared between copies until one of them changes.
        var storage: Storage
    }
}
