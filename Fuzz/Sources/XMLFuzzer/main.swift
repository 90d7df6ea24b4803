import Foundation
import XMLFuzzTarget

// libFuzzer's driver; SwiftPM renames an executable's `main`, so libFuzzer's own main cannot
// be used and the driver is called explicitly (recipe in DESIGN.md).
typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: FuzzCallback
) -> CInt

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in xmlFuzzTestOneInput(data, size) })
