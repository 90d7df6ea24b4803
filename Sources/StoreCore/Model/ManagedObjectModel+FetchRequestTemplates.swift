extension ManagedObjectModel {
    /// The template stored under `name`, as written (variables not substituted).
    public func fetchRequestTemplate(forName name: String) -> StoreFetchRequest? {
        fetchRequestTemplatesByName[name]
    }

    /// A fetch request made from a stored template, with its `$variables` replaced — Core Data's
    /// `fetchRequestFromTemplate(withName:substitutionVariables:)`.
    ///
    /// For example:
    ///
    /// ```swift
    /// // stored with the model: "recentPosts" → Post, predicate "timestamp > $since"
    /// let request: FetchRequest<Post> = try model.fetchRequestFromTemplate(
    ///     withName: "recentPosts", substitutionVariables: ["since": Date().addingTimeInterval(-86_400)])
    /// ```
    ///
    /// - Throws: ``ModelError`` for an unknown template; ``FetchError`` (code `unboundVariable`)
    ///   when a variable of the template is not given a value.
    public func fetchRequestFromTemplate<Result: FetchRequestResult>(
        withName name: String, substitutionVariables: [String: any StoreValueConvertible] = [:]
    ) throws -> FetchRequest<Result> {
        guard let template = fetchRequestTemplatesByName[name] else {
            throw ModelError(.unknownFetchRequestTemplate, key: name, "the model has no fetch request template named \(name)")
        }
        var request = FetchRequest<Result>(entityName: template.entityName)
        let resultType = request.storeRequest.resultType
        request.storeRequest = template
        request.storeRequest.resultType = resultType
        request.storeRequest.predicate = template.predicate?.substituting(variables: substitutionVariables)
        request.storeRequest.havingPredicate = template.havingPredicate?.substituting(variables: substitutionVariables)
        let missing = (request.storeRequest.predicate?.variableNames ?? []).union(request.storeRequest.havingPredicate?.variableNames ?? [])
        if !missing.isEmpty {
            throw FetchError(.unboundVariable, "fetch request template \(name) needs values for " + missing.sorted().map { "$" + $0 }.joined(separator: ", "))
        }
        return request
    }
}
