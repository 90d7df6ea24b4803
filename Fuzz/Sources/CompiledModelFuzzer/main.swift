import CompiledModelFuzzTarget
import FuzzDriver

runFuzzer { data, size in compiledModelFuzzTestOneInput(data, size) }
