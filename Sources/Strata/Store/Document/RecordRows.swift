import Foundation

/// Full persistent rows keyed by record ID: the document overlay's and a save's patch's
/// table. An ``ObjectIDTable``: a bulk save's inserts are one entity's consecutive keys,
/// kept in a dense array at 8 bytes a row instead of a dictionary's 32-byte entries.
typealias RecordRows = ObjectIDTable<[PropertyValue]>
