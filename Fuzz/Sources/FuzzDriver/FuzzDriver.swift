import Foundation

/// libFuzzer's per-input callback: the input's bytes and count; returns 0.
public typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: FuzzCallback
) -> CInt

/// Runs libFuzzer on `callback` with the process's arguments and exits with its status.
/// SwiftPM renames an executable's `main`, so libFuzzer's own main cannot be used and its driver
/// is called explicitly (recipe in DESIGN.md).
///
/// For example, a fuzzer's whole `main.swift`:
///
/// ```swift
/// runFuzzer { data, size in predicateFuzzTestOneInput(data, size) }
/// ```
public func runFuzzer(_ callback: FuzzCallback) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
}
