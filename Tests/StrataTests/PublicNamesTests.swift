import Foundation
import Strata  // not @testable: the names users see
import Testing

/// The contract: a file that imports both Foundation and Strata compiles with every public
/// name unqualified. This file is that file: each public top-level type is named here
/// beside Foundation, so a clash (as `Operation` once was, with Foundation's) fails the
/// build; the test fails when a public type is missing from the list.
@Suite struct PublicNames {
    static let topLevelTypes: [String: Any.Type] = [
        "AttributeDescription": AttributeDescription.self,
        "AttributeKey": AttributeKey<Int64>.self,
        "AttributeType": AttributeType.self,
        "BatchDeleteRequest": BatchDeleteRequest.self,
        "BatchExecutingStore": (any BatchExecutingStore).self,
        "BatchInsertRequest": BatchInsertRequest.self,
        "BatchResult": BatchResult.self,
        "BatchResultType": BatchResultType.self,
        "BatchUpdateRequest": BatchUpdateRequest.self,
        "ChangeBatch": ChangeBatch.self,
        "ChangeGroupInfo": ChangeGroupInfo.self,
        "ChangeGroupKind": ChangeGroupKind.self,
        "ChangeOperation": ChangeOperation.self,
        "CompactionReport": CompactionReport.self,
        "ConstraintConflict": ConstraintConflict.self,
        "CompositeAttributeDescription": CompositeAttributeDescription.self,
        "CompositeKey": CompositeKey.self,
        "ContextUndoManager": ContextUndoManager.self,
        "DeleteRule": DeleteRule.self,
        "DocumentInfo": DocumentInfo.self,
        "DocumentStore": DocumentStore.self,
        "DocumentSync": DocumentSync.self,
        "FileSegmentRemote": FileSegmentRemote.self,
        "RemoteDocument": RemoteDocument.self,
        "RemoteSegment": RemoteSegment.self,
        "SegmentRemote": (any SegmentRemote).self,
        "SyncConflict": SyncConflict.self,
        "SyncReport": SyncReport.self,
        "EntityDescription": EntityDescription.self,
        "FetchedResultsChangeType": FetchedResultsChangeType.self,
        "FetchedResultsController": FetchedResultsController<ManagedObject>.self,
        "FetchedResultsControllerDelegate": (any FetchedResultsControllerDelegate).self,
        "FetchedResultsDiff": FetchedResultsDiff.self,
        "FetchedResultsItemChange": FetchedResultsItemChange.self,
        "FetchedResultsSection": FetchedResultsSection.self,
        "FetchedResultsSnapshot": FetchedResultsSnapshot.self,
        "FetchedResultsUpdate": FetchedResultsUpdate.self,
        "PersistentGroupMetadata": PersistentGroupMetadata.self,
        "PersistentContainer": PersistentContainer.self,
        "PersistentHistoryChange": PersistentHistoryChange.self,
        "PersistentHistoryChangeKind": PersistentHistoryChangeKind.self,
        "PersistentHistoryPropertyChange": PersistentHistoryPropertyChange.self,
        "PersistentHistoryRequest": PersistentHistoryRequest.self,
        "PersistentHistoryToken": PersistentHistoryToken.self,
        "PersistentHistoryTransaction": PersistentHistoryTransaction.self,
        "ExpressionDescription": ExpressionDescription.self,
        "FetchProperty": FetchProperty.self,
        "ResultIndexPath": ResultIndexPath.self,
        "FetchCollectionOperator": FetchCollectionOperator.self,
        "FetchComparison": FetchComparison.self,
        "FetchExpression": FetchExpression.self,
        "FetchFunction": FetchFunction.self,
        "FetchIndex": FetchIndex.self,
        "FetchIndexDescription": FetchIndexDescription.self,
        "FetchOperand": FetchOperand.self,
        "FetchPredicate": FetchPredicate.self,
        "FetchRequest": FetchRequest<ManagedObject>.self,
        "FetchRequestResult": (any FetchRequestResult).self,
        "FetchRequestResultType": FetchRequestResultType.self,
        "FetchRequestTemplate": FetchRequestTemplate.self,
        "FetchResults": FetchResults.self,
        "FetchSortDescriptor": FetchSortDescriptor.self,
        "FetchedPropertyDescription": FetchedPropertyDescription.self,
        "GroupRecord": GroupRecord.self,
        "InMemoryStore": InMemoryStore.self,
        "KeyPathValue": KeyPathValue.self,
        "ManagedObject": ManagedObject.self,
        "ManagedObjectContext": ManagedObjectContext.self,
        "ManagedObjectID": ManagedObjectID.self,
        "ManagedObjectModel": ManagedObjectModel.self,
        "MigrationContext": MigrationContext.self,
        "MigrationPlan": MigrationPlan.self,
        "MigrationRecord": MigrationRecord.self,
        "MigrationReport": MigrationReport.self,
        "MigrationStage": MigrationStage.self,
        "ModelVersionRecord": ModelVersionRecord.self,
        "ModelVersionSet": ModelVersionSet.self,
        "MergeConflict": MergeConflict.self,
        "MergePolicy": MergePolicy.self,
        "ObjectChanges": ObjectChanges.self,
        "PersistentStore": (any PersistentStore).self,
        "PersistentStoreCoordinator": PersistentStoreCoordinator.self,
        "PredicateArgument": PredicateArgument.self,
        "PredicateResolved": PredicateResolved.self,
        "PredicateRow": PredicateRow.self,
        "PredicateSubject": (any PredicateSubject).self,
        "PredicateText": PredicateText.self,
        "PropertyValue": PropertyValue.self,
        "QueryGenerationToken": QueryGenerationToken.self,
        "PropertyValueConvertible": (any PropertyValueConvertible).self,
        "RelationshipDescription": RelationshipDescription.self,
        "RelationshipSet": RelationshipSet.self,
        "RowSubject": RowSubject.self,
        "SaveChanges": SaveChanges.self,
        "Segment": Segment.self,
        "SegmentGroup": SegmentGroup.self,
        "SegmentRecord": SegmentRecord.self,
        "SlotChange": SlotChange.self,
        "TextCursor": TextCursor.self,
        "TextEdit": TextEdit.self,
        "SlotChanges": SlotChanges.self,
        "StoreBatchInsert": StoreBatchInsert.self,
        "StoreBatchOutcome": StoreBatchOutcome.self,
        "StoreBatchRequest": StoreBatchRequest.self,
        "StoreFetchMerge": StoreFetchMerge.self,
        "StoreFetchRequest": StoreFetchRequest.self,
        "StoreRecord": StoreRecord.self,
        "StoreRemoteChange": StoreRemoteChange.self,
        "StoreSaveRequest": StoreSaveRequest.self,
        "StoreSaveResult": StoreSaveResult.self,
        "UndoGroupIDs": UndoGroupIDs.self,
        "StrataError": StrataError.self,
        "StrataLimits": StrataLimits.self,
        "ToManyKey": ToManyKey<ManagedObject>.self,
        "ToOneKey": ToOneKey<ManagedObject>.self,
        "TypedKeyDescription": TypedKeyDescription.self,
        "Transformed": Transformed<String>.self,
        "EntityDeclaration": EntityDeclaration.self,
        "PropertyDeclaration": PropertyDeclaration.self,
        "AttributeOption": AttributeOption.self,
        "ObservableManagedObject": (any ObservableManagedObject).self,
        "DeclaredPlainValue": (any DeclaredPlainValue).self,
        "FetchedPropertyDeclaration": FetchedPropertyDeclaration.self,
        "CompositeValue": (any CompositeValue).self,
        "CompositeDeclaration": CompositeDeclaration.self,
        "CompositeElementDeclaration": CompositeElementDeclaration.self,
        "CompositeElements": CompositeElements.self,
    ]

    @Test func everyPublicTopLevelTypeIsNamedBesideFoundation() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        // StrataStorage's public names (StrataError) are Strata's too: it re-exports them.
        let folders = ["Sources/Strata", "Sources/StrataStorage"].map { root.appendingPathComponent($0) }
        let declaration = try Regex(#"^(?:@\w+ )*(?:public|open) (?:final |indirect )?(?:class|struct|enum|protocol|typealias|actor) (\w+)"#)
        var declared: Set<String> = []
        for sources in folders {
            let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL {
                guard file.pathExtension == "swift" else { continue }
                for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                    if let match = try declaration.prefixMatch(in: line), let name = match.output[1].substring {
                        declared.insert(String(name))
                    }
                }
            }
        }
        #expect(declared.count > 50, "found the sources at \(root.path)")
        #expect(declared.subtracting(Self.topLevelTypes.keys).sorted() == [], "public types missing from this list")
        #expect(Set(Self.topLevelTypes.keys).subtracting(declared).sorted() == [], "listed types no longer declared")
    }
}
