import BinaryStoreFuzzTarget
import Foundation

// libFuzzer's driver (see PredicateFuzzer/main.swift). `--write-seeds DIR` writes the seed
// store files instead of fuzzing.
typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: FuzzCallback
) -> CInt

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
var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in binaryStoreFuzzTestOneInput(data, size) })
