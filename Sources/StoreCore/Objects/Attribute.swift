import Foundation

/// A typed attribute property on a ``ManagedObject`` subclass.
///
/// The property's name is the attribute's key unless you pass another. Reading loads a fault;
/// writing records the change in the object's context.
///
/// For example:
///
/// ```swift
/// final class Quake: ManagedObject {
///     @Attribute var magnitude: Double
///     @Attribute var place: String?
///     @Attribute("time") var occurredAt: Date?
/// }
/// quake.magnitude = 4.2
/// ```
@propertyWrapper
public struct Attribute<Value: StoreValueConvertible> {
    @usableFromInline let declaredKey: DeclaredKey

    /// Uses the property's own name as the key.
    public init() { declaredKey = DeclaredKey() }
    /// Uses `key` as the key.
    public init(_ key: String) { declaredKey = DeclaredKey(key) }

    // Inlinable so that each use is specialized for its value type in the caller's module; the
    // work (the property index, faulting, change tracking) is in the non-generic calls.
    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get {
            // `wrappedKeyPath` is left unused, so the compiler does not make it (see `TypedAccess`).
            if let value = object.typedAttributeInPlace(Value.self, for: storageKeyPath) { return value }
            let value = object.typedAttributeValue(for: storageKeyPath, valueType: Value.self) { object[keyPath: storageKeyPath].declaredKey.explicitKey }
            return Value(storeValue: value) ?? Value.emptyValue
        }
        set {
            if object.setTypedAttributeInPlace(newValue, for: storageKeyPath) { return }
            object.setTypedAttributeValue(newValue.storeValue, for: storageKeyPath) { object[keyPath: storageKeyPath].declaredKey.explicitKey }
        }
    }

    @available(*, unavailable, message: "@Attribute is only available on ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }
    }
}

extension Attribute: ManagedPropertyDeclaration {
    func mismatch(with property: PropertyDescription) -> String? {
        guard let attribute = property as? AttributeDescription else { return "declared with @Attribute but it is a relationship" }
        if attribute.valueTransformerName != nil { return "a transformable attribute must be declared with @Transformable" }
        let sample: StoreValue? = switch attribute.attributeType {
        case .integer16, .integer32, .integer64: .integer(1)
        case .decimal: .decimal(1)
        case .double: .double(1)
        case .float: .float(1)
        case .string: .string("")
        case .boolean: .boolean(true)
        case .date: .date(Date(timeIntervalSinceReferenceDate: 0))
        case .binaryData: .data(Data())
        case .uuid: .uuid(UUID())
        case .uri: .uri(URL(fileURLWithPath: "/"))
        case .objectID: .objectID(.emptyValue)
        case .transformable, .undefined, .composite: nil
        }
        if let sample, Value(storeValue: sample) == nil {
            return "Swift type \(Value.self) cannot hold a \(attribute.attributeType.name) value"
        }
        return nil
    }
}

/// A typed transformable property on a ``ManagedObject`` subclass: any `Codable` value,
/// stored through the transformer the model names for the attribute.
///
/// A value that cannot be read — stored data its transformer cannot decode, a fault that
/// cannot be loaded — reads as `nil`, as in Core Data, and the reason is logged (an error on
/// the `stowage.model` logger); ``ManagedObject/value(forKey:)`` throws it. A value that cannot
/// be set is reported by the next save.
///
/// For example:
///
/// ```swift
/// final class Theme: ManagedObject {
///     @Transformable var palette: Palette?
/// }
/// ```
@propertyWrapper
public struct Transformable<Value> {
    let declaredKey: DeclaredKey

    /// Uses the property's own name as the attribute's key.
    public init() { declaredKey = DeclaredKey() }
    /// Uses `key` as the attribute's key.
    public init(_ key: String) { declaredKey = DeclaredKey(key) }

    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value?>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value? {
        get {
            let key = object[keyPath: storageKeyPath].declaredKey.explicitKey ?? PropertyWrapperKeys.key(for: storageKeyPath)
            do {
                return try object.value(forKey: key) as? Value
            } catch {
                // A getter cannot throw: as Core Data's, it reads nil and the reason is logged.
                TransformerLog.noteUnreadableValue(error, key: key, of: object.objectID)
                return nil
            }
        }
        set {
            let key = object[keyPath: storageKeyPath].declaredKey.explicitKey ?? PropertyWrapperKeys.key(for: storageKeyPath)
            do {
                try object.setValue(newValue, forKey: key)
            } catch {
                // A setter cannot throw: keep the failure for the next save to report.
                object.recordFailedSet(error, forKey: key)
            }
        }
    }

    @available(*, unavailable, message: "@Transformable is only available on ManagedObject subclasses")
    public var wrappedValue: Value? {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }
    }
}

extension Transformable: ManagedPropertyDeclaration {
    func mismatch(with property: PropertyDescription) -> String? {
        guard let attribute = property as? AttributeDescription, let name = attribute.valueTransformerName else {
            return "declared with @Transformable but it is not a transformable attribute"
        }
        if let transformer = AttributeValueTransformers.transformer(named: name), transformer.valueType != Value.self,
            transformer.valueType != Any.self {
            return "transformer '\(name)' handles \(transformer.valueType), not \(Value.self)"
        }
        return nil
    }
}
