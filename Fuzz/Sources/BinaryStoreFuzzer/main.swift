import BinaryStoreFuzzTarget
import Foundation
import FuzzDriver

// `--write-seeds DIR` writes the seed store files instead of fuzzing.
let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "--write-seeds" {
    do {
        for (number, seed) in try BinaryStoreFuzzModel.seeds().enumerated() {
            try seed.write(to: URL(fileURLWithPath: arguments[2]).appendingPathComponent("store\(number + 1).bplist"))
        }
        exit(0)
    } catch {
        print("cannot write the seeds: \(error)")
        exit(1)
    }
}
runFuzzer { data, size in binaryStoreFuzzTestOneInput(data, size) }
