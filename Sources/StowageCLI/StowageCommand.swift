import ArgumentParser

@main
struct StowageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stowage",
        abstract: "Stowage: a Core Data–style object graph and persistence framework for Swift.",
        subcommands: [CompileCommand.self, DemoCommand.self, DiagramCommand.self, ExportCommand.self, InspectCommand.self, MigrateCommand.self, SyncCommand.self]
    )
}
