import Foundation

extension SnapshotGraph {
    /// The graph an atomic store file describes, every object checked against the model
    /// (``AtomicFileLoader`` says what is checked).
    ///
    /// - Throws: ``StoreError`` — `unknownEntity`, `unknownProperty`,
    ///   `danglingReference` or `corrupt` — naming the object and key.
    package init(file: AtomicStoreFile, model: ManagedObjectModel, storeIdentifier: String, url: URL?) throws(StoreError) {
        var file = file
        try self.init(taking: &file, model: model, storeIdentifier: storeIdentifier, url: url)
    }

    /// The graph an atomic store file describes, taking the file's objects: the values arrays of
    /// laid-out objects the caller holds nowhere else become the snapshots' own, without a copy.
    /// `file.objects` is left empty.
    package init(taking file: inout AtomicStoreFile, model: ManagedObjectModel, storeIdentifier: String, url: URL?) throws(StoreError) {
        self.init(model: model)
        var objects = file.objects
        file.objects = []
        let loader = AtomicFileLoader(model: model, storeIdentifier: storeIdentifier, url: url)
        loadTables(try loader.tables(taking: &objects))
    }

    /// The file that describes this graph, objects in key order, laid out by the model's
    /// entities over the snapshots' own values arrays (shared, not copied; a to-one relationship
    /// is its target's ID there, which ``AtomicStoreObject`` reads as the target's key).
    package func file(metadata: StoreMetadata, nextPrimaryKey: Int64) -> AtomicStoreFile {
        var objects: [AtomicStoreObject] = []
        objects.reserveCapacity(count)
        for snapshot in allSnapshots {
            guard let key = snapshot.objectID.primaryKey else { continue }
            var lists: [AtomicStoreObject.ToManyKeys] = []
            if snapshot.holdsToMany {
                for (index, targets) in snapshot.toManyRelationships where !targets.isEmpty {
                    lists.append(AtomicStoreObject.ToManyKeys(index: index, keys: targets.compactMap(\.primaryKey)))
                }
            }
            objects.append(AtomicStoreObject(entity: snapshot.entity, primaryKey: key, values: snapshot.values, toManyLists: lists))
        }
        objects.sort { $0.primaryKey < $1.primaryKey }
        return AtomicStoreFile(metadata: metadata, nextPrimaryKey: nextPrimaryKey, objects: objects)
    }
}
