import Foundation

/// Records changes as undo actions and performs them: Foundation's `UndoManager` API, which
/// Foundation on Linux does not have. Give one to a context (``ManagedObjectContext/undoManager``)
/// and every change of its objects becomes undoable, one group per event (a `perform` block, or
/// everything up to a `processPendingChanges()`, save or fetch).
///
/// Where Foundation has no `UndoManager` (Linux, Windows), `UndoManager` is another name for this
/// class, so Core Data code reads as it did. On Apple platforms Foundation's `UndoManager` keeps
/// its name — a file importing both modules would otherwise not know which one it means — and
/// this one is spelled `StoreUndoManager`.
///
/// Use it on the queue of the context it serves. Actions registered while undoing become redo
/// actions, and the other way round; registering a new action outside undo and redo clears the
/// redo stack.
///
/// For example:
///
/// ```swift
/// context.undoManager = StoreUndoManager()   // or UndoManager() on Linux
/// post.title = "Draft"
/// context.processPendingChanges()      // ends the event: one undo group
/// context.undoManager?.undo()          // post.title is back
/// context.undoManager?.redo()          // "Draft" again
/// ```
public final class StoreUndoManager {
    struct Action {
        let target: ObjectIdentifier
        let perform: () -> Void
    }
    struct Group {
        var actions: [Action] = []
        var name = ""
    }

    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    private var openGroups: [Group] = []
    /// Where registrations go while undoing or redoing.
    private var collecting: Group?
    private var disabledCount = 0
    /// Called before the manager looks at its groups: contexts record their pending changes.
    var checkpointHandlers: [ObjectIdentifier: () -> Void] = [:]

    /// Whether changes of one event form one group by themselves (the default); explicit
    /// ``beginUndoGrouping()`` / ``endUndoGrouping()`` pairs group more.
    public var groupsByEvent = true
    /// How many groups are kept (0: no limit); the oldest go first.
    public var levelsOfUndo = 0 {
        didSet { trim() }
    }
    /// Whether an ``undo()`` is running.
    public private(set) var isUndoing = false
    /// Whether a ``redo()`` is running.
    public private(set) var isRedoing = false

    /// An empty undo manager that groups by event and keeps every level — like Foundation's
    /// `UndoManager()`.
    public init() {}

    // MARK: Registering

    /// Registers an action that undoes a change: `handler` receives `target` when it runs
    /// (the target is not retained; a released target's actions do nothing).
    public func registerUndo<Target: AnyObject>(withTarget target: Target, handler: @escaping (Target) -> Void) {
        guard isUndoRegistrationEnabled else { return }
        let action = Action(target: ObjectIdentifier(target)) { [weak target] in
            if let target { handler(target) }
        }
        if collecting != nil {
            collecting?.actions.append(action)
        } else if !openGroups.isEmpty {
            openGroups[openGroups.count - 1].actions.append(action)
            redoStack.removeAll()
        } else {
            push(Group(actions: [action]))
            redoStack.removeAll()
        }
    }

    /// Names the open group's action (or the last group's), for a menu's "Undo …" item.
    public func setActionName(_ name: String) {
        if collecting != nil {
            collecting?.name = name
        } else if !openGroups.isEmpty {
            openGroups[openGroups.count - 1].name = name
        } else if !undoStack.isEmpty {
            undoStack[undoStack.count - 1].name = name
        }
    }

    /// The name of the group ``undo()`` would undo.
    public var undoActionName: String { undoStack.last?.name ?? "" }
    /// The name of the group ``redo()`` would redo.
    public var redoActionName: String { redoStack.last?.name ?? "" }

    // MARK: Grouping

    /// Opens a group: every action registered until the matching ``endUndoGrouping()`` is
    /// undone together. Groups nest.
    public func beginUndoGrouping() {
        checkpoint()
        openGroups.append(Group())
    }

    /// Closes the innermost open group.
    public func endUndoGrouping() {
        checkpoint()
        guard let group = openGroups.popLast() else { return }
        if openGroups.isEmpty {
            if !group.actions.isEmpty { push(group) }
        } else {
            openGroups[openGroups.count - 1].actions += group.actions
            if openGroups[openGroups.count - 1].name.isEmpty { openGroups[openGroups.count - 1].name = group.name }
        }
    }

    /// How many groups are open.
    public var groupingLevel: Int { openGroups.count }

    // MARK: Undoing and redoing

    /// Whether there is a group to undo (pending changes of the contexts served count).
    public var canUndo: Bool {
        checkpoint()
        return !undoStack.isEmpty || openGroups.contains { !$0.actions.isEmpty }
    }

    /// Whether there is a group to redo.
    public var canRedo: Bool { !redoStack.isEmpty }

    /// Undoes the last group (closing an open top-level group first); its actions run in
    /// reverse order and what they register becomes the redo group.
    public func undo() {
        checkpoint()
        if openGroups.count == 1 { endUndoGrouping() }
        guard !isUndoing, !isRedoing, let group = undoStack.popLast() else { return }
        isUndoing = true
        collecting = Group(name: group.name)
        for action in group.actions.reversed() { action.perform() }
        checkpoint()
        if let redo = collecting, !redo.actions.isEmpty { redoStack.append(redo) }
        collecting = nil
        isUndoing = false
    }

    /// Redoes the last undone group.
    public func redo() {
        checkpoint()
        guard !isUndoing, !isRedoing, let group = redoStack.popLast() else { return }
        isRedoing = true
        collecting = Group(name: group.name)
        for action in group.actions.reversed() { action.perform() }
        checkpoint()
        if let undo = collecting, !undo.actions.isEmpty { push(undo) }
        collecting = nil
        isRedoing = false
    }

    /// Forgets every undo and redo group.
    public func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        openGroups = openGroups.map { Group(name: $0.name) }
    }

    /// Forgets the actions of one target.
    public func removeAllActions(withTarget target: AnyObject) {
        let id = ObjectIdentifier(target)
        func keep(_ group: Group) -> Group { Group(actions: group.actions.filter { $0.target != id }, name: group.name) }
        undoStack = undoStack.map(keep).filter { !$0.actions.isEmpty }
        redoStack = redoStack.map(keep).filter { !$0.actions.isEmpty }
        openGroups = openGroups.map(keep)
    }

    // MARK: Turning registration off

    /// Stops registering actions until the matching ``enableUndoRegistration()`` (calls nest).
    public func disableUndoRegistration() {
        checkpoint()
        disabledCount += 1
    }

    /// Resumes registering actions.
    public func enableUndoRegistration() {
        checkpoint()
        disabledCount = max(0, disabledCount - 1)
    }

    /// Whether actions are registered.
    public var isUndoRegistrationEnabled: Bool { disabledCount == 0 }

    // MARK: Internals

    private func push(_ group: Group) {
        undoStack.append(group)
        trim()
    }

    private func trim() {
        if levelsOfUndo > 0, undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
    }

    private func checkpoint() {
        for handler in Array(checkpointHandlers.values) { handler() }
    }
}

#if !canImport(Darwin)
/// Foundation's name for an undo manager, where Foundation has none: ``StoreUndoManager``.
///
/// For example:
///
/// ```swift
/// context.undoManager = UndoManager()
/// ```
public typealias UndoManager = StoreUndoManager
#endif
