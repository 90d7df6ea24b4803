extension ManagedObjectContext {
    /// `objects` as `[Result]`, in order, leaving out any object that is not a `Result`: what
    /// `objects.compactMap { $0 as? Result }` returns, without a dynamic cast per object.
    ///
    /// `objectType` is `Result.self` as the fetch cast it to `ManagedObject.Type`. Each object's
    /// class is checked, by identity, against the last class found to be `Result` or a subclass
    /// (the objects of a fetch share one class, or a few for sub-entities), and the array is then
    /// reinterpreted once. Anything unproven takes the per-object cast.
    static func typedObjects<Result>(
        _ objects: [ManagedObject], as objectType: ManagedObject.Type, _: Result.Type, checked ofEntityClasses: Bool = false
    ) -> [Result] {
        // `Result` is the class `objectType` names, not just castable to it: the same metadata.
        guard ObjectIdentifier(objectType) == ObjectIdentifier(Result.self) else { return objects.compactMap { $0 as? Result } }
        // `ofEntityClasses`: each object is an instance of its entity's class, which the caller
        // checked is `objectType` or a subclass of it.
        if objectType != ManagedObject.self && !ofEntityClasses {
            var provenClass: ObjectIdentifier?
            for object in objects {
                let objectClass = type(of: object)
                if ObjectIdentifier(objectClass) == provenClass { continue }
                // An object made with another class than its entity's (`ManagedObject(entity:insertInto:)`)
                // is left out, as the cast leaves it out.
                guard objectClass.isSubclassOrSame(of: objectType) else { return objects.compactMap { $0 as? Result } }
                provenClass = ObjectIdentifier(objectClass)
            }
        }
        // Safe: `Result` is a class (its metadata is `objectType`'s; no existential can be a
        // `FetchRequestResult`, so none reaches here), so `[Result]` and `[ManagedObject]` are the
        // same thing in memory: one reference to a buffer of object references. Every object was
        // just found to be an instance of `Result` or of a subclass (or `Result` is
        // `ManagedObject`). This is the buffer reuse the standard library's own array downcast
        // makes after checking the elements.
        return unsafeBitCast(objects, to: [Result].self)
    }
}
